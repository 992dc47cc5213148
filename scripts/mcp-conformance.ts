// MCP conformance check: runs the official conformance tool (@modelcontextprotocol/conformance) against the real
// service: the version in devDependencies (0.1.13, the last that runs on Node 20), or the one installed in
// CONFORMANCE_DIR (CI installs the newest, 0.1.16, and runs it on Node 22, which it needs).
//
// The tool cannot send an OAuth access token, and /mcp needs one. So this script:
//   1. starts `cbs serve` as a child process on a fresh embedded database (a temporary DATA_DIR) with the demo data;
//   2. signs the demo user in through the real OAuth flow over HTTP, as an MCP client and a browser would: dynamic
//      client registration, /authorize, the sign-in form, Allow on the consent page, /token with the PKCE verifier;
//   3. starts a small local proxy that forwards every request to the service unchanged and adds only
//      `Authorization: Bearer <token>` when the request has none;
//   4. runs each scenario against the proxy's /mcp and fails when any scenario fails.
// The child, the proxy and the temporary directory are always cleaned up.
// Run: npm run conformance:mcp   (DATABASE_URL, when set, is passed on; the database must then be empty)
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { startDemoService } from "./DemoService.js"
import { signIn } from "./OAuthSignIn.js"

/** The server scenarios that apply to this service (all present in `npx conformance list` of 0.1.13). */
/**
 * The server scenarios that apply to this service. The others test features it does not have (logging, completion,
 * prompts, sampling, elicitation, resource templates and subscriptions, SSE streams: it answers JSON, statelessly)
 * or fixtures of the reference test server (tools-call-* and json-schema-2020-12 call tools, resources-read-* read
 * resources, by names only that server has); README lists them. Its resources are the cards (MCP Apps).
 */
const SCENARIOS = ["server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"] as const

/** The conformance tool to run: CONFORMANCE_DIR's, or the project's own through npx. */
const conformanceDir = process.env["CONFORMANCE_DIR"]
const conformanceCommand: readonly [string, ReadonlyArray<string>] =
  conformanceDir === undefined || conformanceDir === ""
    ? ["npx", ["--no", "conformance"]]
    : [path.join(conformanceDir, "node_modules", ".bin", "conformance"), []]
const conformanceVersion = (): string => {
  const manifest = path.join(
    conformanceDir || path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."),
    "node_modules/@modelcontextprotocol/conformance/package.json"
  )
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version
}

const SCENARIO_TIMEOUT_MS = 30_000
/** Everything together stays under about two minutes. */
const TOTAL_TIMEOUT_MS = 120_000

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-mcp-conformance-"))

let service: ChildProcess | undefined
let proxy: Server | undefined
let tool: ChildProcess | undefined
/** The service's output, kept for the report when something goes wrong. */
const serviceLog: Array<string> = []

// ---------------------------------------------------------------------------------------------------------------
// The service

// ---------------------------------------------------------------------------------------------------------------
// The proxy

/**
 * A proxy on 127.0.0.1 that forwards every request to the service as received (method, path, body and all headers,
 * Host and Origin included) and streams the answer back. It adds `Authorization: Bearer <token>` when the request
 * has no Authorization header; that is the only header it adds.
 *
 * Host and Origin: the service answers only to its own loopback names on its own port (`localhost:P`,
 * `127.0.0.1:P`, `[::1]:P`, DNS-rebinding protection), and the conformance tool, talking to the proxy, names the
 * proxy: `Host: 127.0.0.1:<proxy port>`. So a Host that is exactly the proxy's own address (`127.0.0.1:<proxy>` or
 * `localhost:<proxy>`) becomes the service's `127.0.0.1:<service port>`, and an Origin of
 * `http://127.0.0.1:<proxy>` or `http://localhost:<proxy>` becomes `http://127.0.0.1:<service port>`: the request
 * then looks as if it had been sent to the service directly. Any other Host or Origin, such as the forged
 * `evil.example.com` of the dns-rebinding-protection scenario, passes through unchanged, so the service itself has
 * to reject it.
 */
const startProxy = async (servicePort: number, token: string): Promise<number> => {
  const server = createServer()
  proxy = server
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const proxyPort = (server.address() as AddressInfo).port
  const ownHosts = new Set([`127.0.0.1:${proxyPort}`, `localhost:${proxyPort}`])
  const ownOrigins = new Set([...ownHosts].map((host) => `http://${host}`))

  server.on("request", (incoming, outgoing) => {
    const headers: Array<string> = []
    let authorized = false
    const raw = incoming.rawHeaders
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!
      let value = raw[i + 1]!
      const lower = name.toLowerCase()
      if (lower === "host" && ownHosts.has(value.toLowerCase())) value = `127.0.0.1:${servicePort}`
      if (lower === "origin" && ownOrigins.has(value.toLowerCase())) value = `http://127.0.0.1:${servicePort}`
      if (lower === "authorization") authorized = true
      headers.push(name, value)
    }
    if (!authorized) headers.push("Authorization", `Bearer ${token}`)
    const upstream = httpRequest(
      { host: "127.0.0.1", port: servicePort, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders)
        answer.pipe(outgoing)
      }
    )
    upstream.on("error", (error) => {
      if (outgoing.headersSent) outgoing.destroy(error)
      else outgoing.writeHead(502, { "content-type": "text/plain" }).end(`proxy: ${error.message}`)
    })
    incoming.pipe(upstream)
  })
  return proxyPort
}

// ---------------------------------------------------------------------------------------------------------------
// The conformance tool

/** Runs `npx conformance ARGS` with its output shown; its exit code (124 when it ran out of time). */
const conformance = (args: ReadonlyArray<string>, capture = false) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(conformanceCommand[0], [...conformanceCommand[1], ...args], {
      cwd: root,
      stdio: ["ignore", capture ? "pipe" : "inherit", "inherit"]
    })
    tool = child
    let output = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const timer = setTimeout(() => {
      console.log(`conformance ${args.join(" ")}: no result in ${SCENARIO_TIMEOUT_MS} ms, stopping it`)
      child.kill("SIGKILL")
    }, SCENARIO_TIMEOUT_MS)
    child.on("error", (error) => {
      console.log(`cannot run npx conformance: ${error.message}`)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      tool = undefined
      resolve({ code: code ?? (signal === "SIGKILL" ? 124 : 1), output })
    })
  })

// ---------------------------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

let cleaned = false
const cleanup = async () => {
  if (cleaned) return
  cleaned = true
  tool?.kill("SIGKILL")
  proxy?.closeAllConnections()
  proxy?.close()
  const child = service
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    child.kill("SIGTERM")
    const stopped = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])
    if (!stopped) {
      child.kill("SIGKILL")
      await exited
    }
  }
  rmSync(workDir, { recursive: true, force: true })
}

/** Reports `message` (with the service's last output lines when `showLog`), cleans up and exits with 1. */
const fail = async (message: string, showLog = true) => {
  console.log(`\nMCP conformance: ${message}`)
  if (showLog && serviceLog.length > 0)
    console.log(`--- service output (last lines) ---\n${serviceLog.slice(-40).join("\n")}`)
  await cleanup()
  process.exit(1)
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void fail(`stopped by ${signal}`))
}
const watchdog = setTimeout(() => void fail(`did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`), TOTAL_TIMEOUT_MS)

const main = async () => {
  const began = Date.now()
  const listed = await conformance(["list", "--server"], true)
  // Lines such as "  - tools-list" or, from 0.1.14 on, "  - tools-list [2025-06-18,2025-11-25]".
  const available = new Set(
    [...listed.output.matchAll(/^\s*-\s*(\S+)(\s+\[[^\]]*\])?\s*$/gm)].map((match) => match[1]!)
  )
  const missing = SCENARIOS.filter((scenario) => !available.has(scenario))
  if (listed.code !== 0 || missing.length > 0) {
    return fail(`npx conformance list does not offer ${missing.join(", ") || "its scenarios"}`)
  }

  const started = await startDemoService(workDir, (line) => {
    serviceLog.push(line)
    if (serviceLog.length > 200) serviceLog.shift()
  })
  service = started.child
  console.log(`service: ${started.base} (listening on ${started.origin}), DATA_DIR ${workDir}`)
  const token = await signIn(started, "MCP conformance check")
  console.log(`signed in as ${started.email} through OAuth (register, authorize, sign-in, consent, token)`)
  const proxyPort = await startProxy(started.port, token)
  const url = `http://127.0.0.1:${proxyPort}/mcp`
  console.log(`proxy: ${url} -> ${started.origin}/mcp (adds the bearer token)`)

  const results: Array<{ scenario: string; passed: boolean }> = []
  for (const scenario of SCENARIOS) {
    console.log(`\n==> conformance server --scenario ${scenario}`)
    const { code } = await conformance(["server", "--url", url, "--scenario", scenario])
    results.push({ scenario, passed: code === 0 })
  }

  console.log(
    `\nMCP conformance (@modelcontextprotocol/conformance ${conformanceVersion()}, Node.js ${process.version}):`
  )
  for (const { scenario, passed } of results) console.log(`  ${passed ? "PASS" : "FAIL"}  ${scenario}`)
  console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`)
  const failed = results.filter((result) => !result.passed)
  if (failed.length > 0)
    return fail(`${failed.length} of ${results.length} scenarios failed (see their checks above)`, false)
  clearTimeout(watchdog)
  await cleanup()
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
