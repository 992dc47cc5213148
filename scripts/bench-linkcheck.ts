// Link checks against `cbs serve` (the compiled program, its workers on) on a real PostgreSQL, with a test website on
// this machine: HOSTS node:http servers, one on each of 127.0.0.1 … 127.0.0.HOSTS (Linux routes all of 127/8 to
// loopback), so that the checker sees HOSTS distinct hosts (its pacing key is the source address's host). Each
// server answers a backlink's page: HTML with the backlink's link, one in ten without it, one in ten a 404; and it
// records, per host, how many requests were in flight at once and the time between two requests.
// OUTBOUND_ALLOW_LOOPBACK=true lets the checks reach it over http: a setting for development and tests, never for
// production.
//   BACKLINKS backlinks over the HOSTS hosts are imported (`cbs import`), made due now, then one instance runs the checks
// until every backlink has been checked once. With BENCH_INSTANCES=2 (the default) a second instance runs beside it for
// the middle part of the run (from the first check until a third of the backlinks are checked, then it stops), to
// show that the pacing holds across instances. It measures: checks per second from the first check to the last, the
// instances' CPU per check, the first instance's peak memory (VmHWM), and the pacing (the most requests in flight at
// once to one host, which must be 1, and the shortest time between two requests to one host, which must be ≥ 2 s),
// and, from the job queue, how long a step of a host's round held a worker and how late after its start time a worker
// took it (the workers' share of the pace: LINK_CHECK_WORKERS steps at a time per instance).
// It ends with the arithmetic of a 1,000,000-backlink service re-checked weekly.
// Exits 0 whatever the figures (it is a measurement), 1 when setup failed or a check came out other than its page
// says (an error, a timeout, a wrong outcome).
// Run: npm run bench:linkcheck (builds nothing: run npm run build first if the sources changed)
//   DATABASE_URL     an admin connection; default postgres://postgres@127.0.0.1:5432/postgres
//   BENCH_INSTANCES  1: one instance only; 2 (default): a second one for part of the run
import type { ChildProcess } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { loadAverage } from "./LoadAverage.js"
import {
  adminUrl,
  benchEnv,
  cpuMs,
  freePort,
  quantile,
  removeScratch,
  runBench,
  runCbs,
  scratch,
  serveCbs,
  stopChild,
  withClient
} from "./Support.js"

const BACKLINKS = 10_000
const HOSTS = 200
const INSTANCES = process.env["BENCH_INSTANCES"] === "1" ? 1 : 2
/** The pacing the contract asks for: at least this long between two requests to one host. */
const PAUSE_MS = 2_000
/** How long every backlink may take to be checked once (the first sweep comes within a minute). */
const RUN_LIMIT_MS = 15 * 60_000
const TARGET = "https://bench-site.example/"
/** A 1,000,000-backlink service re-checking each backlink weekly. */
const FLEET = 1_000_000
const WEEK_SECONDS = 7 * 86_400

const made = scratch("cbs_bench_linkcheck")
const { url: benchUrl, workDir } = made
const loadAtStart = loadAverage()
const children: Array<ChildProcess> = []
const logs: Array<string> = []
const sites: Array<http.Server> = []
const env = benchEnv(benchUrl, workDir, { OUTBOUND_ALLOW_LOOPBACK: "true", WORKERS: "on", LINK_CHECKS: "on" })
const cbs = (args: ReadonlyArray<string>) => runCbs(args, env)

const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
  withClient(benchUrl, async (client) => (await client.query(text, [...values])).rows as Array<A>)

const cleanup = async () => {
  await Promise.all(sites.map((site) => new Promise((resolve) => site.close(resolve))))
  await removeScratch(made, children)
}

// --- the test website ---------------------------------------------------------------------------------------------

/** What page K is: with the link, without it, or gone. */
type Kind = "found" | "link_removed" | "page_not_found"
const kindOf = (k: number): Kind => (k % 10 === 3 ? "link_removed" : k % 10 === 7 ? "page_not_found" : "found")

const FILLER = "<p>A paragraph about boilers, radiators and the cost of heating a house in winter.</p>\n".repeat(40)
const page = (k: number) =>
  `<!doctype html><html><head><title>Page ${k}</title></head><body><h1>Page ${k}</h1>${FILLER}` +
  (kindOf(k) === "found" ? `<p>See <a href="${TARGET}"${k % 4 === 0 ? ' rel="nofollow"' : ""}>Bench</a>.</p>` : "") +
  `${FILLER}</body></html>`

/** Per host: requests in flight now and at most, and the arrival time of each request (ms). */
interface HostLog {
  inFlight: number
  maxInFlight: number
  readonly arrivals: Array<number>
}
const hostLogs = new Map<string, HostLog>()
/** Requests per checking instance (its User-Agent names its address). */
const byAgent = new Map<string, number>()
const arrivals: Array<number> = []

const handler = (host: string) => {
  const log: HostLog = { inFlight: 0, maxInFlight: 0, arrivals: [] }
  hostLogs.set(host, log)
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const now = performance.now()
    log.inFlight++
    log.maxInFlight = Math.max(log.maxInFlight, log.inFlight)
    log.arrivals.push(now)
    arrivals.push(now)
    const agent = req.headers["user-agent"] ?? "?"
    byAgent.set(agent, (byAgent.get(agent) ?? 0) + 1)
    res.once("close", () => log.inFlight--)
    const k = Number(/^\/page-(\d+)$/.exec(req.url ?? "")?.[1] ?? Number.NaN)
    if (Number.isNaN(k) || kindOf(k) === "page_not_found") {
      res.writeHead(404, { "content-type": "text/html" }).end("<p>Not found</p>")
    } else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(k))
    }
  }
}

const listen = (server: http.Server, host: string, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })

/** HOSTS servers on 127.0.0.1 … 127.0.0.HOSTS, all on one port: that port. */
const startSites = async () => {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    try {
      for (let n = 1; n <= HOSTS; n++) {
        const host = `127.0.0.${n}`
        const server = http.createServer(handler(host))
        sites.push(server)
        await listen(server, host, port)
      }
      return port
    } catch (error) {
      // Another program took the port on one of the addresses meanwhile: start again on another.
      await Promise.all(sites.splice(0).map((site) => new Promise((resolve) => site.close(resolve))))
      hostLogs.clear()
      if (attempt === 4) throw error
    }
  }
}

// --- the instances ------------------------------------------------------------------------------------------------

/** Starts `cbs serve` (its log kept, to look for failed checks in). */
const serve = () => {
  const log = path.join(workDir, `serve-${children.length + 1}.log`)
  logs.push(log)
  return serveCbs(env, log, children)
}

/** The peak resident memory of a process so far (VmHWM), in MiB; undefined off Linux. */
const peakMiB = (pid: number) => {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

const checkedCount = async () =>
  (await query<{ n: number }>("select count(*)::int as n from backlinks where last_checked_at is not null"))[0]!.n

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = async () => {
  await withClient(adminUrl, (client) => client.query(`create database ${made.database}`))
  await cbs(["migrate"])
  const sitePort = await startSites()

  // BACKLINKS backlinks, page K on host 127.0.0.(K mod HOSTS + 1), through the import.
  const importFile = path.join(workDir, "import.json")
  writeFileSync(
    importFile,
    JSON.stringify({
      accounts: [
        {
          email: "linkcheck@bench.example",
          name: "Link checks",
          sites: [
            {
              name: "Bench",
              website_url: TARGET.slice(0, -1),
              articles: [],
              backlinks: Array.from({ length: BACKLINKS }, (_, k) => ({
                acquired_at: "2026-11-01T08:00:00Z",
                source_url: `http://127.0.0.${(k % HOSTS) + 1}:${sitePort}/page-${k}`,
                target_url: TARGET,
                anchor_text: "Bench",
                anchor_type: "branded",
                status: "live",
                category: "industry"
              }))
            }
          ]
        }
      ]
    })
  )
  const importStart = performance.now()
  await cbs(["import", importFile])
  const importMs = performance.now() - importStart
  const [imported] = await query<{ n: number; hosts: number }>(
    "select count(*)::int as n, count(distinct source_host)::int as hosts from backlinks"
  )
  if (imported!.n !== BACKLINKS || imported!.hosts !== HOSTS) {
    throw new Error(`imported ${imported!.n} backlinks on ${imported!.hosts} hosts`)
  }
  await query("update backlinks set next_check_at = now()")

  // --- the run ----------------------------------------------------------------------------------------------------
  const first = await serve()
  const firstPid = first.child.pid ?? 0
  const readyAt = performance.now()
  const cpuAtReady = cpuMs(firstPid)
  let second: { child: ChildProcess; port: number; cpuAtReady: number | undefined; cpu?: number } | undefined
  let secondUntil: number | undefined
  let checked = 0
  for (;;) {
    checked = await checkedCount()
    if (checked >= BACKLINKS) break
    if (performance.now() - readyAt > RUN_LIMIT_MS) break
    if (INSTANCES === 2 && second === undefined && arrivals.length > 0) {
      const started = await serve()
      second = { ...started, cpuAtReady: cpuMs(started.child.pid ?? 0) }
    }
    if (second !== undefined && second.cpu === undefined && checked >= BACKLINKS / 3) {
      // Its CPU read just before it stops: what it spent checking, without its shutdown.
      const at = cpuMs(second.child.pid ?? 0)
      second.cpu = at === undefined || second.cpuAtReady === undefined ? Number.NaN : at - second.cpuAtReady
      await stopChild(second.child)
      secondUntil = performance.now()
    }
    await sleep(200)
  }
  const cpuAtEnd = cpuMs(firstPid)
  const peak = peakMiB(firstPid)
  const endLoad = loadAverage()

  // --- what the checks saw ----------------------------------------------------------------------------------------
  const [span] = await query<{ first: number; last: number; checks: number }>(
    `select (extract(epoch from min(checked_at)) * 1000)::float8 as first,
       (extract(epoch from max(checked_at)) * 1000)::float8 as last, count(*)::int as checks from backlink_checks`
  )
  const wrong = await query<{ source_url: string; outcome: string; error: string | null }>(
    `select b.source_url, c.outcome, c.error from backlink_checks c join backlinks b on b.id = c.backlink_id`
  ).then((rows) =>
    rows.filter((row) => {
      const k = Number(/page-(\d+)$/.exec(row.source_url)?.[1])
      return row.outcome !== kindOf(k) || row.error !== null
    })
  )
  // The rounds' jobs: how long a step held its worker, and how late after its start_after a worker took it.
  const jobs = await query<{ run: number; late: number }>(
    `select (extract(epoch from (completed_on - started_on)) * 1000)::float8 as run,
       (extract(epoch from (started_on - start_after)) * 1000)::float8 as late
     from pgboss.job where name = 'link-check' and state = 'completed'`
  )
  const failedLines = logs
    .flatMap((log) => readFileSync(log, "utf8").split("\n"))
    .filter((line) => line.includes("Link check of a backlink") || line.includes("link checks' sweep failed"))

  // --- pacing, as the website saw it --------------------------------------------------------------------------------
  let maxInFlight = 0
  let minGap = Number.POSITIVE_INFINITY
  const gaps: Array<number> = []
  for (const log of hostLogs.values()) {
    maxInFlight = Math.max(maxInFlight, log.maxInFlight)
    for (let i = 1; i < log.arrivals.length; i++) {
      const gap = log.arrivals[i]! - log.arrivals[i - 1]!
      gaps.push(gap)
      minGap = Math.min(minGap, gap)
    }
  }
  const requests = arrivals.length
  const firstRequest = Math.min(...arrivals)
  const lastRequest = Math.max(...arrivals)
  const seconds = (span!.last - span!.first) / 1000
  const perSecond = (span!.checks - 1) / seconds

  const secondCpu = second?.cpu ?? 0
  const firstCpu = cpuAtReady === undefined || cpuAtEnd === undefined ? undefined : cpuAtEnd - cpuAtReady
  const cpuPerCheck = firstCpu === undefined ? undefined : (firstCpu + secondCpu) / span!.checks
  const agents = [...byAgent.entries()].map(([agent, n]) => `${/:(\d+)\/link-checker/.exec(agent)?.[1] ?? agent}: ${n}`)

  // --- report -------------------------------------------------------------------------------------------------------
  console.log(
    `${new Date().toISOString()}  Node ${process.version}  ${os.availableParallelism()} cores  load average ${loadAtStart} at the start, ${endLoad} at the end`
  )
  console.log(
    `setup: ${BACKLINKS} backlinks over ${HOSTS} hosts (127.0.0.1-${HOSTS}:${sitePort}) imported in ${(importMs / 1000).toFixed(1)} s, made due now`
  )
  console.log(
    `run: ${INSTANCES === 2 ? `one instance, a second one beside it from the first check until ${second === undefined ? "?" : "a third were checked"} (${secondUntil === undefined ? "?" : `${((secondUntil - firstRequest) / 1000).toFixed(0)} s`})` : "one instance"}; ` +
      `the first check ${((firstRequest - readyAt) / 1000).toFixed(1)} s after the first instance was ready (the minute sweep), the last ${((lastRequest - readyAt) / 1000).toFixed(1)} s after`
  )
  console.log(
    `checks: ${span!.checks} (${checked} backlinks checked), ${requests} requests (per instance port: ${agents.join(", ")}), ${wrong.length} with an unexpected outcome, ${failedLines.length} failures logged`
  )
  console.log(
    `checks per second from the first to the last: ${perSecond.toFixed(1)} (${seconds.toFixed(1)} s; the pacing allows at most ${HOSTS / (PAUSE_MS / 1000)})`
  )
  console.log(
    `CPU per check: ${cpuPerCheck === undefined ? "?" : `${cpuPerCheck.toFixed(2)} ms`} (the instances' CPU from ready to the end: ${firstCpu ?? "?"} + ${second === undefined ? 0 : secondCpu} ms)`
  )
  console.log(`peak memory of the first instance (VmHWM): ${peak === undefined ? "?" : `${peak.toFixed(0)} MiB`}`)
  console.log(
    `pacing: at most ${maxInFlight} request(s) in flight to one host (must be 1); the shortest time between two requests to one host ${(minGap / 1000).toFixed(3)} s (must be ≥ ${PAUSE_MS / 1000} s), p50 ${(quantile(gaps, 0.5) / 1000).toFixed(2)} s, p95 ${(quantile(gaps, 0.95) / 1000).toFixed(2)} s`
  )
  const msOf = (values: ReadonlyArray<number>, q: number) => `${quantile(values, q).toFixed(0)} ms`
  const runs = jobs.map((job) => job.run)
  const lates = jobs.map((job) => job.late)
  console.log(
    `steps (link-check jobs): ${jobs.length}, each holding a worker p50 ${msOf(runs, 0.5)}, p95 ${msOf(runs, 0.95)}; taken after its start p50 ${msOf(lates, 0.5)}, p95 ${msOf(lates, 0.95)}`
  )
  for (const line of failedLines.slice(0, 3)) console.log(`  logged: ${line.slice(0, 300)}`)
  for (const row of wrong.slice(0, 5)) console.log(`  unexpected: ${row.source_url} ${row.outcome} ${row.error ?? ""}`)
  const needed = FLEET / WEEK_SECONDS
  if (cpuPerCheck !== undefined) {
    const share = (needed * cpuPerCheck) / 1000
    console.log("")
    console.log(
      `${FLEET.toLocaleString("en")} backlinks re-checked weekly: ${FLEET.toExponential(0)}/(7×86400) = ${needed.toFixed(2)} checks/s; ` +
        `at ${cpuPerCheck.toFixed(2)} ms of CPU each that is ${(share * 100).toFixed(2)}% of one core (${((share * 100) / os.availableParallelism()).toFixed(2)}% of ${os.availableParallelism()} cores): ` +
        `${share < 0.1 ? "it fits in one instance's spare CPU" : "it does NOT fit in one instance's spare CPU"}`
    )
  }
  console.log(
    `pacing: max in flight per host ${maxInFlight} (${maxInFlight === 1 ? "held" : "NOT HELD"}), min gap ${(minGap / 1000).toFixed(3)} s (${minGap >= PAUSE_MS ? "held" : "NOT HELD"})`
  )
  console.log(`checks per second, ${HOSTS} hosts: ${perSecond.toFixed(1)}`)
  return checked >= BACKLINKS && wrong.length === 0 && failedLines.length === 0
}

runBench(main, cleanup)
