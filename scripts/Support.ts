import type { ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
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
