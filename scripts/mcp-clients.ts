// The MCP clients people use, against the real service: the Inspector's CLI (`--strict`: tool-schema portability)
// and `mcp-remote` (the bridge desktop assistants use for remote servers), on 127.0.0.1 and on localhost: it signs
// in through the service's own pages in Chromium (sign-in form, Allow), then lists the tools and calls each one over
// its stdio side, as a desktop assistant would.
//
// Both need Node.js 22 (the Inspector needs 22.19 or later), so they are not devDependencies: MCP_CLIENTS_DIR names
// a directory where `npm install mcp-remote@0.15.1 @modelcontextprotocol/inspector@2.12.0` was run (CI does it).
// Chromium: CHROMIUM_PATH or /usr/bin/chromium. The service: `cbs serve` on a fresh embedded database with the demo
// data. Everything started is stopped, whatever happens.
// Run: MCP_CLIENTS_DIR=DIR npm run clients:mcp   (with Node.js 22 first on PATH)
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { type Browser, chromium } from "playwright-core"
import { Api } from "../src/Api.js"
import { deriveTools } from "../src/Mcp/Tools.js"
import { type Started, startDemoService } from "./DemoService.js"
import { signIn } from "./OAuthSignIn.js"
import { stopChild } from "./Support.js"

/** How many tools the service lists: one per endpoint that carries a tool annotation. */
const TOOL_COUNT = deriveTools(Api).length

const TOTAL_TIMEOUT_MS = 180_000
const STEP_TIMEOUT_MS = 30_000

const clientsDir = process.env["MCP_CLIENTS_DIR"] ?? ""
const chromiumPath = [process.env["CHROMIUM_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (candidate) => candidate !== undefined && candidate !== "" && existsSync(candidate)
)
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-mcp-clients-"))
const children: Array<ChildProcess> = []
let browser: Browser | undefined
const serviceLog: Array<string> = []

const fail = async (message: string): Promise<never> => {
  console.log(`\nMCP clients: ${message}`)
  if (serviceLog.length > 0) console.log(`--- service output (last lines) ---\n${serviceLog.slice(-30).join("\n")}`)
  await cleanup()
  process.exit(1)
}

let cleaned = false
const cleanup = async () => {
  if (cleaned) return
  cleaned = true
  await browser?.close().catch(() => undefined)
  await Promise.all(children.map((child) => stopChild(child, 5_000)))
  rmSync(workDir, { recursive: true, force: true })
}

const within = <A>(what: string, promise: Promise<A>, ms = STEP_TIMEOUT_MS) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))
  ])

// ---------------------------------------------------------------------------------------------------------------
// The Inspector

/** `inspector --cli URL --method tools/list --strict`: must exit 0 with no warning or error about any tool. */
const inspectorStrict = async (started: Started) => {
  const token = await signIn(started, "MCP Inspector check")
  const launcher = path.join(clientsDir, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
  const child = spawn(
    process.execPath,
    [
      launcher,
      "--cli",
      `${started.origin}/mcp`,
      "--method",
      "tools/list",
      "--strict",
      "--header",
      `Authorization: Bearer ${token}`
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: workDir } }
  )
  children.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
  })
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const code = await within("inspector", new Promise<number | null>((resolve) => child.on("close", resolve)))
  const problems = stderr.split("\n").filter((line) => /^(Warning|Error)\b/.test(line))
  const tools = (JSON.parse(stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)
  console.log(`Inspector --strict: exit ${code}, ${tools.length} tools, ${problems.length} warnings or errors`)
  if (code !== 0 || problems.length > 0 || tools.length !== TOOL_COUNT) {
    await fail(`the Inspector's --strict check did not pass:\n${stderr}`)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// mcp-remote

/** A JSON-RPC conversation over a child's stdio: one message a line each way. */
const stdioRpc = (child: ChildProcess) => {
  let buffer = ""
  const waiting = new Map<number, (message: Record<string, unknown>) => void>()
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end).trim()
      buffer = buffer.slice(end + 1)
      if (line === "") continue
      const message = JSON.parse(line) as Record<string, unknown>
      const id = message["id"]
      if (typeof id === "number") waiting.get(id)?.(message)
    }
  })
  let next = 1
  const send = (message: Record<string, unknown>) => child.stdin?.write(`${JSON.stringify(message)}\n`)
  return {
    notify: (method: string) => send({ jsonrpc: "2.0", method }),
    request: (method: string, params: Record<string, unknown>) => {
      const id = next++
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve))
      send({ jsonrpc: "2.0", id, method, params })
      return within(method, answered)
    }
  }
}

/** The result of a tool call that must have succeeded: its structured content. */
const succeeded = (name: string, message: Record<string, unknown>) => {
  const result = message["result"] as { isError?: boolean; structuredContent?: { data?: unknown } } | undefined
  if (result === undefined || result.isError === true) throw new Error(`${name}: ${JSON.stringify(message)}`)
  return result.structuredContent?.data
}

/** mcp-remote against `host`: the sign-in and Allow in Chromium, then tools/list and one call of each tool. */
const mcpRemote = async (started: Started, host: string) => {
  const began = Date.now()
  const url = `http://${host}:${started.port}/mcp`
  const child = spawn(process.execPath, [path.join(clientsDir, "node_modules/mcp-remote/dist/proxy.js"), url], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: path.join(workDir, `mcp-auth-${host}`), BROWSER: "none" }
  })
  children.push(child)
  let log = ""
  const authorizationUrl = new Promise<string>((resolve) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8")
      const found = /Please authorize this client by visiting:\s*(\S+)/.exec(log)
      if (found !== null) resolve(found[1]!)
    })
  })
  const rpc = stdioRpc(child)
  const initialized = rpc.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "mcp-remote check", version: "1.0.0" }
  })

  // The person's part: the service's sign-in page and its Allow button, in Chromium.
  const page = await browser!.newPage()
  await page.goto(await within(`mcp-remote on ${host}: the authorization URL`, authorizationUrl))
  await page.getByLabel("E-mail").fill(started.email)
  await page.getByLabel("Password").fill(started.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("button", { name: "Allow" }).click()
  await page.waitForURL(/\/oauth\/callback\?/)
  await page.close()

  const init = await initialized
  if (init["result"] === undefined) throw new Error(`initialize: ${JSON.stringify(init)}\n${log}`)
  rpc.notify("notifications/initialized")
  const listed = (await rpc.request("tools/list", {}))["result"] as { tools: Array<{ name: string }> }
  const names = listed.tools.map((tool) => tool.name).sort()
  const call = async (name: string, args: Record<string, unknown>) =>
    succeeded(name, await rpc.request("tools/call", { name, arguments: args }))
  const sites = (await call("list_sites", {})) as Array<{ id: number }>
  const site = sites[0]!.id
  const articles = (await call("list_articles", { site_id: site })) as Array<{ id: number }>
  const article = articles[0]!.id
  await call("get_article", { article_id: article })
  await call("list_backlinks", { site_id: site })
  await call("get_stats", { site_id: site, period: "last_30_days" })
  await call("update_article", { article_id: article, meta_description: `Checked through mcp-remote on ${host}.` })
  await call("replace_featured_image", { article_id: article, url: "https://images.example/check.png" })
  console.log(
    `mcp-remote on ${host}: signed in, Allowed, ${names.length} tools listed (${names.join(", ")}), each called, in ${((Date.now() - began) / 1000).toFixed(1)} s`
  )
  if (names.length !== TOOL_COUNT) await fail(`mcp-remote on ${host} listed ${names.length} tools`)
  await stopChild(child, 5_000)
}

const main = async () => {
  if (clientsDir === "" || !existsSync(path.join(clientsDir, "node_modules/mcp-remote"))) {
    return fail("set MCP_CLIENTS_DIR to a directory with mcp-remote and @modelcontextprotocol/inspector installed")
  }
  if (chromiumPath === undefined) return fail("no Chromium: set CHROMIUM_PATH or apt-get install chromium")
  const started = await startDemoService(path.join(workDir, "data"), (line) => {
    serviceLog.push(line)
    if (serviceLog.length > 200) serviceLog.shift()
  })
  children.push(started.child)
  console.log(`service: ${started.base} (listening on ${started.origin}), Node.js ${process.version}`)
  await inspectorStrict(started)
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })
  for (const host of ["127.0.0.1", "localhost"]) await mcpRemote(started, host)
  await cleanup()
}

const watchdog = setTimeout(() => void fail(`did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`), TOTAL_TIMEOUT_MS)
main()
  .then(() => clearTimeout(watchdog))
  .catch((error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)))
