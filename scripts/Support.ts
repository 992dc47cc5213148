import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

/** The admin connection the scripts create and drop their databases through. */
export const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** `url` with its database replaced by `database`. */
export const databaseUrl = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Runs `run` on a client of its own, connected to `url` and closed afterwards. */
export const withClient = async <A>(url: string, run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** A TCP port free on 127.0.0.1 at the moment of asking. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

/**
 * CPU time a process has used so far (user + system), in ms, read from /proc; undefined off Linux. On a shared
 * machine this, unlike a wall time, does not grow with the other tenants' load.
 */
export const cpuMs = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // utime and stime (fields 14 and 15) in clock ticks of 10 ms; the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

/** The value below which `q` of `values` lie (a latency percentile: `quantile(latencies, 0.99)`); NaN for none. */
export const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Stops a child process: SIGTERM, then SIGKILL if it is still running `graceMs` later. */
export const stopChild = (child: ChildProcess, graceMs = 10_000) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill("SIGTERM")
  })

/** The project's root, where `bin/cbs.js` is. */
export const root = fileURLToPath(new URL("..", import.meta.url))

/** A benchmark's own database (`<prefix>_<pid>`, on the admin connection's server) and scratch directory. */
export const scratch = (prefix: string) => {
  const database = `${prefix}_${process.pid}`
  return {
    database,
    url: databaseUrl(adminUrl, database),
    workDir: mkdtempSync(path.join(os.tmpdir(), `${prefix.replaceAll("_", "-")}-`))
  }
}

/**
 * The environment of a `cbs` a benchmark runs on `url`: no demo, on 127.0.0.1, the request and edit limits out of the
 * way, a short shutdown; `extra` added.
 */
export const benchEnv = (url: string, workDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: url,
  DATA_DIR: workDir,
  SEED_DEMO: "false",
  HOST: "127.0.0.1",
  REQUESTS_PER_MINUTE: "100000000",
  EDITS_PER_DAY: "100000000",
  SHUTDOWN_TIMEOUT_SECONDS: "2",
  ...extra
})

/** Runs `cbs` with `args` in `env` to completion: its stdout, or a failure with its stderr. */
export const runCbs = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/cbs.js", ...args], { cwd: root, env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`cbs ${args.join(" ")} exited ${code}: ${stderr.trim()}`))
    )
  })

/**
 * Runs a benchmark's `main`, then `cleanup` whatever happened; exits 0 when `main` answered true, 1 when it answered
 * false or failed (its error printed).
 */
export const runBench = (main: () => Promise<boolean>, cleanup: () => Promise<void>) =>
  main()
    .then(
      async (ok) => {
        await cleanup()
        process.exit(ok ? 0 : 1)
      },
      async (error: unknown) => {
        console.error(error)
        await cleanup()
        process.exit(1)
      }
    )
    .catch(() => process.exit(1))

/** Stops a benchmark's children, then drops its database and removes its scratch directory (see `scratch`). */
export const removeScratch = async (
  made: { readonly database: string; readonly workDir: string },
  children: ReadonlyArray<ChildProcess>
) => {
  await Promise.all(children.map((child) => stopChild(child)))
  await withClient(adminUrl, (client) => client.query(`drop database if exists ${made.database} with (force)`)).catch(
    () => undefined
  )
  rmSync(made.workDir, { recursive: true, force: true })
}

/**
 * Starts `cbs serve` in `env` on a free port, its output in `log`, added to `children` (for `removeScratch`); answers
 * once it answers /readyz (within 60 s): the process and its port.
 */
export const serveCbs = async (env: NodeJS.ProcessEnv, log: string, children: Array<ChildProcess>) => {
  const port = await freePort()
  const fd = openSync(log, "w")
  const child = spawn(process.execPath, ["bin/cbs.js", "serve", "--port", String(port)], {
    cwd: root,
    env,
    stdio: ["ignore", fd, fd]
  })
  closeSync(fd)
  children.push(child)
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cbs serve exited: ${readFileSync(log, "utf8").slice(-2000)}`)
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false
    )
    if (ok) return { child, port }
    if (Date.now() > deadline) throw new Error("cbs serve did not answer /readyz within 60 s")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
