// Load benchmark of the HTTP API against a real PostgreSQL: `GET /api/v1/sites/{id}/articles?per_page=100` on a
// website with 100,000 articles and a PATCH of meta descriptions, served by `cbs serve` with its limits raised by
// configuration; and the same list served by a bare node:http + pg handler (scripts/bench-baseline.ts) on the same
// database, as the yardstick. Prints requests/s, p50 and p99 of each run and the service/baseline throughput ratio,
// and the list served to a single connection (the latency of a request that does not queue behind others).
// Exits 0 whatever the figures (it is a measurement), 1 when a run had more than 1 % failed requests or setup failed.
// Run: npm run bench:api   (DATABASE_URL: an admin connection; default postgres://postgres@127.0.0.1:5432/postgres)
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import autocannon from "autocannon"
import pg from "pg"
import { loadAverage } from "./LoadAverage.js"

const ARTICLES = 100_000
const CONNECTIONS = 50
const WARMUP_SECONDS = 5
const LIST_SECONDS = 15
const ROUNDS = 3
const PATCH_SECONDS = 10
const ALONE_SECONDS = 5
const POOL_SIZE = 10
const PER_PAGE = 100
/** The list requests cycle through pages 1..PAGES (the first 5,000 articles), the same sequence for both servers. */
const PAGES = 50
/** The PATCH requests go round-robin over this many articles, each with a new meta description. */
const PATCH_ARTICLES = 10
const MAX_FAILED = 0.01
const TARGET_RATIO = 0.6
const TARGET_P99_MS = 50

const root = fileURLToPath(new URL("..", import.meta.url))
const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
const database = `cbs_bench_${process.pid}`
const benchUrl = (() => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
})()
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-bench-"))
const children: Array<{ readonly name: string; readonly child: ChildProcess; readonly log: string }> = []

const withAdmin = async <A>(run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

const serviceEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: benchUrl,
  DATA_DIR: workDir,
  SEED_DEMO: "false",
  ...extra
})

/** Runs `cbs` with the arguments to completion; its stdout. */
const cbs = (args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/cbs.js", ...args], { cwd: root, env: serviceEnv() })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`cbs ${args.join(" ")} exited ${code}: ${stderr.trim()}`))
    )
  })

/** Starts a long-running child whose output goes to a log file (so that nothing here has to read it). */
const startChild = (name: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const log = path.join(workDir, `${name}.log`)
  const fd = openSync(log, "w")
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", fd, fd] })
  closeSync(fd)
  children.push({ name, child, log })
  return child
}

const logTail = (log: string, lines = 20) => {
  try {
    return readFileSync(log, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

const waitForHealth = async (name: string, child: ChildProcess, base: string) => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with status ${child.exitCode} before listening`)
    try {
      const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) })
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${name} did not answer /healthz within 60 s`)
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill("SIGTERM")
  })

let cleaning: Promise<void> | undefined
/** Stops the servers, drops the database and removes the work directory; once, whatever happened before. */
const cleanup = () => {
  cleaning ??= (async () => {
    await Promise.all(children.map(({ child }) => stopChild(child)))
    try {
      await withAdmin((client) => client.query(`drop database if exists ${database} with (force)`))
    } catch (error) {
      console.log(`could not drop database ${database}: ${error instanceof Error ? error.message : String(error)}`)
    }
    rmSync(workDir, { recursive: true, force: true })
  })()
  return cleaning
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the servers and dropping ${database}`)
    void cleanup().finally(() => process.exit(130))
  })
}

/** A ~2 KB body with one protected link, in the form the sanitiser writes. */
const seedArticles = `
  insert into articles (site_id, title, url, status, published_at, target_keyword, word_count, meta_description, body)
  select $1::bigint,
    initcap(k.keyword) || ': a guide, part ' || g,
    'https://bench.example/blog/' || replace(k.keyword, ' ', '-') || '-' || g,
    case g % 50 when 0 then 'draft' when 1 then 'scheduled' else 'published' end,
    case g % 50
      when 0 then null
      when 1 then now() + (g % 30) * interval '1 day'
      else now() - random() * interval '730 days'
    end,
    k.keyword,
    370,
    'What to do about ' || k.keyword || ', explained by a local plumber (part ' || g || ').',
    '<h2>' || initcap(k.keyword) || '</h2><p>'
      || repeat('A local plumber explains the ' || k.keyword || ' problem step by step, with the tools and costs. ', 20)
      || '</p><p>Read more from <a href="https://partner' || g % 40 || '.example/" data-service-protected="backlink">'
      || 'our partner ' || g % 40 || '</a>.</p>'
  from generate_series(1, $2::int) g
  cross join lateral (
    select (array['dripping tap', 'boiler service', 'blocked drain', 'radiator bleeding', 'burst pipe',
      'water heater', 'low water pressure', 'leaking toilet'])[1 + g % 8] as keyword
  ) k`

/** Migrates the fresh database; creates an account, its API key, a website with the articles. */
const prepare = async () => {
  await cbs(["migrate"])
  const email = "bench@example.com"
  const account = await cbs(["account", "create", "--email", email, "--name", "Bench Ltd"])
  const accountId = Number(/account id: (\d+)/.exec(account)?.[1])
  const key = /API key: (\S+)/.exec(await cbs(["key", "create", "--account", email, "--name", "bench"]))?.[1]
  if (!Number.isInteger(accountId) || key === undefined) throw new Error("could not read the account id or API key")

  const client = new pg.Client({ connectionString: benchUrl })
  await client.connect()
  try {
    const site = await client.query<{ id: string }>(
      `insert into sites (account_id, name, website_url, language, country, geographic_scope, industry)
       values ($1, 'Bench Plumbing', 'https://bench.example', 'en', 'GB', 'national', 'Plumbing') returning id`,
      [accountId]
    )
    const siteId = Number(site.rows[0]!.id)
    const started = Date.now()
    await client.query("select setseed(0.42)")
    await client.query(seedArticles, [siteId, ARTICLES])
    // A table that has been in use has been vacuumed by autovacuum; without a visibility map the count(*) of both
    // servers would read the heap instead of the index alone.
    await client.query("vacuum (analyze) articles")
    // Written out now rather than by a checkpoint in the middle of the first measured run.
    await client.query("checkpoint")
    console.log(`${ARTICLES.toLocaleString("en")} articles inserted and analysed in ${Date.now() - started} ms`)
    const newest = await client.query<{ id: string }>(
      `select id from articles where site_id = $1 and status = 'published'
       order by published_at desc nulls last, id desc limit ${PATCH_ARTICLES}`,
      [siteId]
    )
    const version = await client.query<{ server_version: string }>("show server_version")
    return {
      key,
      siteId,
      patchIds: newest.rows.map((row) => Number(row.id)),
      postgres: version.rows[0]!.server_version
    }
  } finally {
    await client.end()
  }
}

/** A server under test: where it listens, its process, and the application_name of its database connections. */
interface Target {
  readonly url: string
  readonly pid: number
  readonly applicationName: string
}

/** What the runs against one server add up to: all responses, their latencies, and the CPU they took. */
interface Tally {
  readonly label: string
  readonly target: Target
  requests: number
  non2xx: number
  errors: number
  seconds: number
  readonly latencies: Array<number>
  /** CPU ms used by the server process and by its PostgreSQL backends during the runs; undefined off Linux. */
  cpu: { node: number; postgres: number } | undefined
}

const tally = (label: string, target: Target): Tally => ({
  label,
  target,
  requests: 0,
  non2xx: 0,
  errors: 0,
  seconds: 0,
  latencies: [],
  cpu: { node: 0, postgres: 0 }
})

const cpuMs = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // utime and stime (fields 14 and 15) in clock ticks of 10 ms; the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

/** CPU used so far by the server and by each of its database backends. */
const cpuSnapshot = async (target: Target) => {
  const backends = await withAdmin((client) =>
    client.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1 and application_name = $2", [
      database,
      target.applicationName
    ])
  )
  return {
    node: cpuMs(target.pid),
    postgres: new Map(backends.rows.map(({ pid }) => [pid, cpuMs(pid) ?? 0]))
  }
}

/** CPU per request between two snapshots; a backend that closed in between is not counted. */
/** CPU used between two snapshots; a backend that closed in between is not counted. */
const cpuBetween = (
  before: Awaited<ReturnType<typeof cpuSnapshot>>,
  after: Awaited<ReturnType<typeof cpuSnapshot>>
) => {
  if (before.node === undefined || after.node === undefined) return undefined
  let postgres = 0
  for (const [pid, used] of after.postgres) postgres += used - (before.postgres.get(pid) ?? 0)
  return { node: after.node - before.node, postgres }
}

/** One autocannon run; each response's latency goes into `latencies` (so that runs can be pooled exactly). */
const cannon = (
  url: string,
  seconds: number,
  headers: Record<string, string>,
  setupRequest: (request: autocannon.Request) => autocannon.Request,
  latencies?: Array<number>,
  connections = CONNECTIONS
) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections, duration: seconds, headers, requests: [{ setupRequest }] },
      (error, result) => (error ? reject(error) : resolve(result))
    )
    if (latencies !== undefined) instance.on("response", (_client, _status, _bytes, time) => latencies.push(time))
  })

/** The same page sequence for every list run: 1, 2, …, PAGES, 1, … */
const listRequests = (siteId: number) => {
  let n = 0
  return (request: autocannon.Request): autocannon.Request => ({
    ...request,
    method: "GET",
    path: `/api/v1/sites/${siteId}/articles?per_page=${PER_PAGE}&page=${(n++ % PAGES) + 1}`
  })
}

/** Round-robin over the articles, each PATCH with a meta description never sent before (a no-op writes nothing). */
let patchCounter = 0
const patchRequests = (ids: ReadonlyArray<number>) => (request: autocannon.Request) => {
  const n = patchCounter++
  return {
    ...request,
    method: "PATCH" as const,
    path: `/api/v1/articles/${ids[n % ids.length]}`,
    body: JSON.stringify({ meta_description: `bench ${n}` })
  }
}

/** One measured run against the target, added to its tally. */
const measure = async (
  into: Tally,
  seconds: number,
  headers: Record<string, string>,
  setupRequest: () => (request: autocannon.Request) => autocannon.Request,
  connections = CONNECTIONS
) => {
  const before = await cpuSnapshot(into.target)
  const result = await cannon(into.target.url, seconds, headers, setupRequest(), into.latencies, connections)
  const cpu = cpuBetween(before, await cpuSnapshot(into.target))
  into.requests += result.requests.total
  into.non2xx += result.non2xx
  into.errors += result.errors
  into.seconds += result.duration
  into.cpu =
    into.cpu === undefined || cpu === undefined
      ? undefined
      : { node: into.cpu.node + cpu.node, postgres: into.cpu.postgres + cpu.postgres }
  console.log(`${into.label}: ${result.requests.total} requests in ${result.duration.toFixed(1)} s`)
}

/** The same page from both servers must be the same JSON, or the comparison means nothing. */
const checkSameAnswer = async (service: string, baseline: string, siteId: number, key: string) => {
  const page = `/api/v1/sites/${siteId}/articles?per_page=${PER_PAGE}&page=3`
  const get = async (base: string) => {
    const response = await fetch(`${base}${page}`, { headers: { authorization: `Bearer ${key}` } })
    if (response.status !== 200) throw new Error(`${base}${page} answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as unknown
  }
  const [ours, theirs] = await Promise.all([get(service), get(baseline)])
  if (!isDeepStrictEqual(ours, theirs)) {
    throw new Error(`the service and the baseline answer ${page} differently:
service:  ${JSON.stringify(ours).slice(0, 400)}
baseline: ${JSON.stringify(theirs).slice(0, 400)}`)
  }
}

const failedShare = (run: Tally) => (run.non2xx + run.errors) / Math.max(1, run.requests + run.errors)

const throughput = (run: Tally) => run.requests / Math.max(run.seconds, 1e-9)

/** The latency below which `q` of the responses came, in ms. */
const percentile = (run: Tally, q: number) => {
  const sorted = [...run.latencies].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

const report = (runs: ReadonlyArray<Tally>, serviceList: Tally, baselineList: Tally, patch: Tally) => {
  const cells = (values: ReadonlyArray<string>) =>
    console.log(values.map((value, i) => (i === 0 ? value.padEnd(32) : value.padStart(9))).join(""))
  const ms = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(1))
  const perRequest = (run: Tally, cpu: number | undefined) =>
    cpu === undefined || run.requests === 0 ? undefined : cpu / run.requests
  console.log("")
  cells(["", "req/s", "p50 ms", "p99 ms", "max ms", "non-2xx", "errors", "node CPU", "pg CPU"])
  for (const run of runs) {
    cells([
      run.label,
      throughput(run).toFixed(0),
      ms(percentile(run, 0.5)),
      ms(percentile(run, 0.99)),
      ms(percentile(run, 1)),
      String(run.non2xx),
      String(run.errors),
      ms(perRequest(run, run.cpu?.node)),
      ms(perRequest(run, run.cpu?.postgres))
    ])
  }
  console.log("(node CPU: ms of CPU per request in the server process; pg CPU: in its PostgreSQL backends)")
  const ratio = throughput(serviceList) / throughput(baselineList)
  const verdict = (ok: boolean) => (ok ? "holds" : "MISSED")
  console.log("")
  console.log(
    `throughput service / baseline: ${(ratio * 100).toFixed(0)} % (target >= ${TARGET_RATIO * 100} %: ${verdict(ratio >= TARGET_RATIO)})`
  )
  for (const run of [serviceList, patch]) {
    const p99 = percentile(run, 0.99)
    console.log(`${run.label} p99: ${ms(p99)} ms (target < ${TARGET_P99_MS} ms: ${verdict(p99 < TARGET_P99_MS)})`)
  }
}

const main = async () => {
  console.log(
    `${new Date().toISOString()}  ${os.cpus().length} CPUs  Node ${process.version}  load average ${loadAverage()}`
  )
  await withAdmin((client) => client.query(`create database ${database}`))
  const { key, siteId, patchIds, postgres } = await prepare()
  console.log(`PostgreSQL ${postgres}, database ${database}; website ${siteId}; PATCH articles ${patchIds.join(", ")}`)

  const [servicePort, baselinePort] = await Promise.all([freePort(), freePort()])
  const limits = { REQUESTS_PER_MINUTE: "100000000", EDITS_PER_DAY: "100000000" }
  const serviceChild = startChild(
    "service",
    ["bin/cbs.js", "serve", "--port", String(servicePort)],
    serviceEnv({ ...limits, HOST: "127.0.0.1", SHUTDOWN_TIMEOUT_SECONDS: "2" })
  )
  const baselineChild = startChild(
    "baseline",
    ["--import", "tsx", "scripts/bench-baseline.ts"],
    serviceEnv({ PORT: String(baselinePort), POOL_SIZE: String(POOL_SIZE) })
  )
  // Both use a pool of POOL_SIZE connections: the service through layerPostgres's default of 10.
  const service: Target = {
    url: `http://127.0.0.1:${servicePort}`,
    pid: serviceChild.pid!,
    applicationName: "content-backlink-service"
  }
  const baseline: Target = {
    url: `http://127.0.0.1:${baselinePort}`,
    pid: baselineChild.pid!,
    applicationName: "cbs-bench-baseline"
  }
  await Promise.all([
    waitForHealth("service", serviceChild, service.url),
    waitForHealth("baseline", baselineChild, baseline.url)
  ])
  await checkSameAnswer(service.url, baseline.url, siteId, key)
  console.log(
    `${CONNECTIONS} connections; pages 1-${PAGES} of ${PER_PAGE}; the list measured in ${ROUNDS} rounds of ${LIST_SECONDS / ROUNDS} s per server, alternating, after ${WARMUP_SECONDS} s of warm-up each`
  )

  const auth = { authorization: `Bearer ${key}` }
  const list = () => listRequests(siteId)
  await cannon(service.url, WARMUP_SECONDS, auth, list())
  await cannon(baseline.url, WARMUP_SECONDS, auth, list())
  // Alternating rounds (service first, then baseline first, …) so that a machine that speeds up or slows down
  // during the run (other tenants, PostgreSQL's background writer) weighs on both servers alike.
  const serviceList = tally("service GET list", service)
  const baselineList = tally("baseline GET list", baseline)
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [serviceList, baselineList] : [baselineList, serviceList]
    for (const run of order) await measure(run, LIST_SECONDS / ROUNDS, auth, list)
  }
  const patchHeaders = { ...auth, "content-type": "application/json" }
  await cannon(service.url, WARMUP_SECONDS, patchHeaders, patchRequests(patchIds))
  const patch = tally("service PATCH", service)
  await measure(patch, PATCH_SECONDS, patchHeaders, () => patchRequests(patchIds))
  // One connection: the time a request takes when it does not queue behind 49 others.
  const serviceAlone = tally("service GET list, 1 connection", service)
  const baselineAlone = tally("baseline GET list, 1 connection", baseline)
  for (const run of [serviceAlone, baselineAlone]) await measure(run, ALONE_SECONDS, auth, list, 1)
  const runs = [serviceList, baselineList, patch, serviceAlone, baselineAlone]
  report(runs, serviceList, baselineList, patch)
  console.log(`load average at the end, this benchmark included: ${loadAverage()}`)

  const failing = runs.filter((run) => failedShare(run) > MAX_FAILED)
  for (const run of failing) {
    console.log(`${run.label}: ${(failedShare(run) * 100).toFixed(1)} % of requests failed`)
  }
  if (failing.length > 0) {
    for (const { name, log } of children) console.log(`--- last lines of the ${name} log ---\n${logTail(log)}`)
  }
  return failing.length === 0 ? 0 : 1
}

const exitCode = await main().catch((error: unknown) => {
  console.log(`bench:api failed: ${error instanceof Error ? error.message : String(error)}`)
  for (const { name, log } of children) console.log(`--- last lines of the ${name} log ---\n${logTail(log)}`)
  return 1
})
await cleanup()
process.exit(exitCode)
