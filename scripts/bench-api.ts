// Load benchmark of the HTTP API against a real PostgreSQL: `GET /api/v1/sites/{id}/articles?per_page=100` on a
// website with 100,000 articles and a PATCH of meta descriptions, served by `cbs serve` with its limits raised by
// configuration; and the same list served by a bare node:http + pg handler (scripts/bench-baseline.ts) on the same
// database, as the yardstick. Prints requests/s, p50 and p99 of each run and the service/baseline throughput ratio.
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

const ARTICLES = 100_000
const CONNECTIONS = 50
const WARMUP_SECONDS = 3
const LIST_SECONDS = 15
const PATCH_SECONDS = 10
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

interface Run {
  readonly label: string
  readonly result: autocannon.Result
  /** CPU milliseconds per request of the server process and of its PostgreSQL backends (Linux only). */
  readonly cpu: { readonly node: number; readonly postgres: number } | undefined
}

/** CPU time a process has used so far, in ms, from /proc (Linux); undefined elsewhere or once it has gone. */
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
const cpuPerRequest = (
  before: Awaited<ReturnType<typeof cpuSnapshot>>,
  after: Awaited<ReturnType<typeof cpuSnapshot>>,
  requests: number
) => {
  if (before.node === undefined || after.node === undefined || requests === 0) return undefined
  let postgres = 0
  for (const [pid, used] of after.postgres) postgres += used - (before.postgres.get(pid) ?? 0)
  return { node: (after.node - before.node) / requests, postgres: postgres / requests }
}

const cannon = (
  url: string,
  seconds: number,
  headers: Record<string, string>,
  setupRequest: (request: autocannon.Request) => autocannon.Request
) => autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, requests: [{ setupRequest }] })

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

/** A warm-up run that is thrown away, then the measured one. */
const measure = async (
  label: string,
  target: Target,
  seconds: number,
  headers: Record<string, string>,
  setupRequest: () => (request: autocannon.Request) => autocannon.Request
): Promise<Run> => {
  await cannon(target.url, WARMUP_SECONDS, headers, setupRequest())
  const before = await cpuSnapshot(target)
  const result = await cannon(target.url, seconds, headers, setupRequest())
  const cpu = cpuPerRequest(before, await cpuSnapshot(target), result.requests.total)
  console.log(`${label}: ${result.requests.total} requests in ${result.duration.toFixed(1)} s`)
  return { label, result, cpu }
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

const failedShare = ({ result }: Run) => {
  const failed = result.non2xx + result.errors
  return failed / Math.max(1, result.requests.total + result.errors)
}

const report = (runs: ReadonlyArray<Run>, serviceList: Run, baselineList: Run, patch: Run) => {
  const cells = (values: ReadonlyArray<string>) =>
    console.log(values.map((value, i) => (i === 0 ? value.padEnd(20) : value.padStart(9))).join(""))
  const ms = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(1))
  console.log("")
  cells(["", "req/s", "p50 ms", "p99 ms", "max ms", "non-2xx", "errors", "node CPU", "pg CPU"])
  for (const { label, result, cpu } of runs) {
    cells([
      label,
      result.requests.average.toFixed(0),
      String(result.latency.p50),
      String(result.latency.p99),
      String(result.latency.max),
      String(result.non2xx),
      String(result.errors),
      ms(cpu?.node),
      ms(cpu?.postgres)
    ])
  }
  console.log("(node CPU: ms of CPU per request in the server process; pg CPU: in its PostgreSQL backends)")
  const ratio = serviceList.result.requests.average / baselineList.result.requests.average
  const verdict = (ok: boolean) => (ok ? "holds" : "MISSED")
  console.log("")
  console.log(
    `throughput service / baseline: ${(ratio * 100).toFixed(0)} % (target >= ${TARGET_RATIO * 100} %: ${verdict(ratio >= TARGET_RATIO)})`
  )
  for (const run of [serviceList, patch]) {
    const p99 = run.result.latency.p99
    console.log(`${run.label} p99: ${p99} ms (target < ${TARGET_P99_MS} ms: ${verdict(p99 < TARGET_P99_MS)})`)
  }
}

const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")

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
    `${CONNECTIONS} connections; ${WARMUP_SECONDS} s warm-up discarded before each run; pages 1-${PAGES} of ${PER_PAGE}`
  )

  const auth = { authorization: `Bearer ${key}` }
  const serviceList = await measure("service GET list", service, LIST_SECONDS, auth, () => listRequests(siteId))
  const baselineList = await measure("baseline GET list", baseline, LIST_SECONDS, auth, () => listRequests(siteId))
  const patch = await measure(
    "service PATCH",
    service,
    PATCH_SECONDS,
    { ...auth, "content-type": "application/json" },
    () => patchRequests(patchIds)
  )
  const runs = [serviceList, baselineList, patch]
  report(runs, serviceList, baselineList, patch)
  console.log(`load average at the end, this benchmark included: ${loadAverage()}`)

  const failing = runs.filter((run) => failedShare(run) > MAX_FAILED)
  for (const run of failing) {
    console.log(`${run.label}: ${(failedShare(run) * 100).toFixed(1)} % of requests failed`)
    console.log(`status codes: ${JSON.stringify(run.result.statusCodeStats ?? {})}`)
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
