// A fresh `cbs serve` with the demo data on an embedded database in a directory of the caller's, for the checks
// that run real clients against the service (scripts/mcp-conformance.ts, scripts/mcp-clients.ts).
import { type ChildProcess, spawn } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const STARTUP_TIMEOUT_MS = 60_000
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface Started {
  /** Where the service listens, e.g. http://127.0.0.1:41234 (what this script talks to). */
  readonly origin: string
  readonly port: number
  /** The public base URL it announced (http://localhost:PORT), for the log. */
  readonly base: string
  readonly email: string
  readonly password: string
  readonly child: ChildProcess
}

/**
 * `cbs serve` on a free port with the data directory `dataDir` (empty: the demo data is imported); settles once the
 * banner is printed and /healthz answers. Every line it prints goes to `log`.
 */
export const startDemoService = async (dataDir: string, log: (line: string) => void): Promise<Started> => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: "127.0.0.1", SEED_DEMO: "true" }
  // The issuer, the resource and the allowed Host values come from the loopback address used: no PUBLIC_BASE_URL.
  delete env["PUBLIC_BASE_URL"]
  delete env["PORT"]
  delete env["MEDIA_DIR"]
  delete env["DATABASE_URL"]
  const child = spawn(process.execPath, ["bin/cbs.js", "serve", "--port", "0"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const banner = new Map<string, string>()
  const wanted = ["listening on", "Demo sign-in:", "Password:", "API key:"]
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split(/\r?\n/)) {
      if (line === "") continue
      log(line)
      for (const prefix of wanted) {
        const at = line.indexOf(prefix)
        if (at !== -1 && !banner.has(prefix)) banner.set(prefix, line.slice(at + prefix.length).trim())
      }
    }
  }
  child.stdout?.on("data", collect)
  child.stderr?.on("data", collect)

  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  while (!banner.has("API key:")) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`cbs serve exited early (${child.exitCode ?? child.signalCode})`)
    }
    if (Date.now() > deadline) throw new Error(`cbs serve printed no "API key:" line in ${STARTUP_TIMEOUT_MS} ms`)
    await sleep(100)
  }
  const base = banner.get("listening on")
  const email = banner.get("Demo sign-in:")
  const password = banner.get("Password:")
  if (base === undefined || email === undefined || password === undefined) {
    throw new Error("the banner lacks the address or the demo sign-in (is the database empty?)")
  }
  const port = Number(new URL(base).port)
  const origin = `http://127.0.0.1:${port}`
  const health = await fetch(`${origin}/healthz`)
  if (health.status !== 200) throw new Error(`GET /healthz answered ${health.status}`)
  return { origin, port, base, email, password, child }
}
