// Load benchmark of the HTTP API against a real PostgreSQL, served by `cbs serve` with its limits raised by
// configuration, beside a bare node:http + pg handler (scripts/bench-baseline.ts) on the same database as the
// yardstick. One database holds one website of each size in BENCH_SIZES. It measures:
//   - throughput: `GET /api/v1/sites/{id}/articles?per_page=100` on the 100,000-article website, 50 connections,
//     service and baseline in alternating rounds: requests/s, latencies, and the CPU of each server process and of
//     its PostgreSQL backends per request;
//   - patch: PATCHes of meta descriptions on that website;
//   - sizes: page 1 of the list, and the stats of the whole seeded range, on one connection, on the smallest and the
//     largest website (does a request cost more on a bigger website?);
//   - search: page 1 of a search for a word that 100 articles of each website hold, on one connection, on the smallest
//     and the largest website, and the CPU (node and PostgreSQL) of such a search beside that of a plain list page;
//   - open-loop: the list at a fixed arrival rate of 100 requests/s, whether or not earlier requests have been
//     answered, each latency counted from the moment its request was due (no coordinated omission).
//   - mcp: the same list pages through the MCP tool `list_articles` (POST /mcp, an OAuth access token), as a 2025
//     client and as a 2026-07-28 client sends the call, and through GET, alternating on the service: node CPU per
//     call of each.
// It ends with the lines `throughput service / baseline: N %`, `node CPU per request service / baseline: R×`,
// `MCP tool call CPU / REST request CPU: R× (2026-07-28: R×; target ≤ 2.5×: met)`,
// `page 1 p50 at 1,000,000 / at 10,000 articles: R×`, `search page 1 p50 at 1,000,000 / at 10,000 articles: R×`,
// the CPU per request of a search and of a plain list page, and `open-loop 100/s p99: N ms`.
// Exits 0 whatever the figures (it is a measurement), 1 when a run had more than 1 % failed requests or setup failed.
// Run: npm run bench:api
//   DATABASE_URL   an admin connection; default postgres://postgres@127.0.0.1:5432/postgres
//   BENCH_SIZES    website sizes to seed, default 10000,100000,1000000 (100,000 is always seeded: the load runs use it)
//   BENCH_ONLY     some of throughput,patch,mcp,sizes,search,open-loop (default: all)
//   BENCH_KEEP=1   keep the seeded database (cbs_bench_kept) and use it again next time: seeding a million articles
//                  takes minutes; `drop database cbs_bench_kept` when done
//   BENCH_OPEN_SECONDS  length of the measured open-loop run, default 30
//   BENCH_PROFILE  a directory: the service writes a V8 CPU profile of the whole run there (Chrome DevTools reads it)
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import autocannon from "autocannon"
import type pg from "pg"
import { bodyText } from "../src/Html/WordCount.js"
import { loadAverage } from "./LoadAverage.js"
import { adminUrl, cpuMs, databaseUrl, freePort, quantile, runCbs, stopChild, withClient } from "./Support.js"

/** The website the load runs use. */
const MAIN_SIZE = 100_000
const SIZES = [
  ...new Set([MAIN_SIZE, ...(process.env["BENCH_SIZES"] ?? "10000,100000,1000000").split(",").map(Number)])
].sort((a, b) => a - b)
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "throughput,patch,mcp,sizes,search,open-loop").split(","))
const KEEP = process.env["BENCH_KEEP"] === "1"
/** Requests per figure on one connection, in alternating rounds, after SIZE_WARMUP unmeasured ones. */
const SIZE_REQUESTS = 400
const SIZE_ROUNDS = 4
const SIZE_WARMUP = 50
const OPEN_RATE = 100
const OPEN_SECONDS = Number(process.env["BENCH_OPEN_SECONDS"] ?? "30")
const OPEN_WARMUP_SECONDS = 5
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
const TARGET_RATIO = 1
const TARGET_CPU_RATIO = 1.5
const TARGET_SIZE_RATIO = 2
const TARGET_P99_MS = 50
/** A guard against regressions: a tool call is a request through the pipeline carried by a POST, about 2× a GET. */
const TARGET_MCP_CPU_RATIO = 2.5

const root = fileURLToPath(new URL("..", import.meta.url))
const profileArgs = process.env["BENCH_PROFILE"] ? ["--cpu-prof", "--cpu-prof-dir", process.env["BENCH_PROFILE"]] : []
const database = KEEP ? "cbs_bench_kept" : `cbs_bench_${process.pid}`
const benchUrl = databaseUrl(adminUrl, database)
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-bench-"))
const children: Array<{ readonly name: string; readonly child: ChildProcess; readonly log: string }> = []

const withAdmin = <A>(run: (client: pg.Client) => Promise<A>): Promise<A> => withClient(adminUrl, run)

const serviceEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: benchUrl,
  DATA_DIR: workDir,
  SEED_DEMO: "false",
  ...extra
})

/** Runs `cbs` with the arguments to completion; its stdout. */
const cbs = (args: ReadonlyArray<string>) => runCbs(args, serviceEnv())

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

let cleaning: Promise<void> | undefined
/** Stops the servers, drops the database and removes the work directory; once, whatever happened before. */
const cleanup = () => {
  cleaning ??= (async () => {
    await Promise.all(children.map(({ child }) => stopChild(child)))
    try {
      if (!KEEP) await withAdmin((client) => client.query(`drop database if exists ${database} with (force)`))
    } catch (error) {
      console.log(`could not drop database ${database}: ${error instanceof Error ? error.message : String(error)}`)
    }
    rmSync(workDir, { recursive: true, force: true })
  })()
  return cleaning
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the servers${KEEP ? "" : ` and dropping ${database}`}`)
    void cleanup().finally(() => process.exit(130))
  })
}

/** A word in exactly SEARCH_MATCHES articles of every website, whatever its size: what the search figures look for. */
const SEARCH_WORD = "thermostat"
const SEARCH_MATCHES = 100

/**
 * A ~2 KB body with one protected link, in the form the sanitiser writes; published articles spread over the last
 * two years, one in fifty a draft and one in fifty scheduled; SEARCH_MATCHES of them (spread over the website) with
 * a paragraph naming SEARCH_WORD. Each row also gets its body's text (what search indexes, as Html/WordCount reads
 * it; prepare checks a sample against it) and its search vector: the trigger that makes the vector on a write is
 * left out here and the body's vectors made once per distinct body text (its keyword, partner and paragraph), which
 * takes seconds where a vector per row would take many minutes. prepare checks a sample against the trigger too.
 */
const seedArticles = `
  with rows as (
    select g, k.keyword, g % 40 as partner, g % greatest(1, $2::int / ${SEARCH_MATCHES}) = 0 as rare
    from generate_series(1, $2::int) g
    cross join lateral (
      select (array['dripping tap', 'boiler service', 'blocked drain', 'radiator bleeding', 'burst pipe',
        'water heater', 'low water pressure', 'leaking toilet'])[1 + g % 8] as keyword
    ) k
  ),
  texts as (
    select keyword, partner, rare, text, setweight(to_tsvector(search_config('en'), text), 'D') as vector
    from (
      select distinct keyword, partner, rare,
        initcap(keyword) || ' '
          || rtrim(repeat('A local plumber explains the ' || keyword || ' problem step by step, with the tools and costs. ', 20))
          || ' Read more from our partner ' || partner || '.'
          || case when rare then ' Ask about the ${SEARCH_WORD} upgrade.' else '' end as text
      from rows
    ) d
  )
  insert into articles (site_id, title, url, status, published_at, target_keyword, word_count, meta_description, body,
    body_text, search)
  select $1::bigint,
    initcap(r.keyword) || ': a guide, part ' || r.g,
    'https://bench.example/blog/' || replace(r.keyword, ' ', '-') || '-' || r.g,
    case r.g % 50 when 0 then 'draft' when 1 then 'scheduled' else 'published' end,
    case r.g % 50
      when 0 then null
      when 1 then now() + (r.g % 30) * interval '1 day'
      else now() - random() * interval '730 days'
    end,
    r.keyword,
    370,
    'What to do about ' || r.keyword || ', explained by a local plumber (part ' || r.g || ').',
    '<h2>' || initcap(r.keyword) || '</h2><p>'
      || repeat('A local plumber explains the ' || r.keyword || ' problem step by step, with the tools and costs. ', 20)
      || '</p><p>Read more from <a href="https://partner' || r.partner || '.example/" data-service-protected="backlink">'
      || 'our partner ' || r.partner || '</a>.</p>'
      || case when r.rare then '<p>Ask about the ${SEARCH_WORD} upgrade.</p>' else '' end,
    t.text,
    setweight(to_tsvector(search_config('en'), initcap(r.keyword) || ': a guide, part ' || r.g), 'A')
      || setweight(to_tsvector(search_config('en'), r.keyword), 'B')
      || t.vector
  from rows r join texts t using (keyword, partner, rare)
  order by r.g`

/**
 * Whether the seeded rows hold what the service would have stored: the text Html/WordCount reads from the body, and
 * the vector the trigger makes (made again for a sample, in a transaction that is rolled back).
 */
const checkSeededSearch = async (client: pg.Client, siteId: number) => {
  const sample = await client.query<{ id: string; body: string; body_text: string }>(
    `select id, body, body_text from articles where site_id = $1
     and (id % 997 = 0 or body like '%${SEARCH_WORD}%') order by id limit 40`,
    [siteId]
  )
  for (const row of sample.rows) {
    if (bodyText(row.body).text !== row.body_text) throw new Error(`article ${row.id}: seeded body_text differs`)
  }
  await client.query("begin")
  const differs = await client.query<{ id: string }>(
    `with seeded as (select id, search::text as vector from articles where id = any($1::bigint[])),
     made as (update articles set body_text = body_text where id = any($1::bigint[]) returning id, search::text as vector)
     select made.id from made join seeded using (id) where made.vector is distinct from seeded.vector`,
    [sample.rows.map((row) => row.id)]
  )
  await client.query("rollback")
  if (differs.rows.length > 0) throw new Error(`articles ${differs.rows.map((row) => row.id)}: seeded vectors differ`)
}

const EMAIL = "bench@example.com"

/** The website of `size` articles, seeded now unless a kept database already has it whole. */
const siteOfSize = async (client: pg.Client, accountId: number, size: number) => {
  const url = `https://bench-${size}.example`
  const found = await client.query<{ id: string; total: number }>(
    "select s.id, (select count(*)::int from articles a where a.site_id = s.id) as total from sites s where website_url = $1",
    [url]
  )
  if (found.rows[0] !== undefined && found.rows[0].total === size) return Number(found.rows[0].id)
  if (found.rows[0] !== undefined) throw new Error(`${url} has ${found.rows[0].total} articles: drop ${database}`)
  const site = await client.query<{ id: string }>(
    `insert into sites (account_id, name, website_url, language, country, geographic_scope, industry)
     values ($1, $2, $3, 'en', 'GB', 'national', 'Plumbing') returning id`,
    [accountId, `Bench Plumbing ${size.toLocaleString("en")}`, url]
  )
  const siteId = Number(site.rows[0]!.id)
  const started = Date.now()
  await client.query("select setseed(0.42)")
  await client.query("alter table articles disable trigger articles_search")
  await client.query(seedArticles, [siteId, size])
  await client.query("alter table articles enable trigger articles_search")
  await checkSeededSearch(client, siteId)
  console.log(`${size.toLocaleString("en")} articles inserted in ${Date.now() - started} ms`)
  return siteId
}

/**
 * An OAuth access token of the account's user for the MCP endpoint, written as the token endpoint writes one (a
 * client, a grant, the token's SHA-256): the sign-in and Allow pages are not what this measures.
 */
const accessToken = async (client: pg.Client, accountId: number) => {
  const token = `cbs_at_${randomBytes(32).toString("base64url")}`
  const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()
  const clientId = `bench-${randomBytes(8).toString("hex")}`
  await client.query(
    `insert into oauth_clients (client_id, client_name, redirect_uris, grant_types, response_types,
       token_endpoint_auth_method, created_at)
     values ($1, 'bench', '{http://127.0.0.1/callback}', '{authorization_code}', '{code}', 'none', now())`,
    [clientId]
  )
  const grant = await client.query<{ id: string }>(
    `insert into oauth_grants (client_id, user_id, code_hash, scope, resource, created_at)
     select $1, u.id, $2, 'mcp', null, now() from users u where u.account_id = $3 order by u.id limit 1
     returning id`,
    [clientId, sha256(`${clientId} code`), accountId]
  )
  await client.query(
    `insert into oauth_access_tokens (token_hash, grant_id, created_at, expires_at)
     values ($1, $2, now(), now() + interval '1 day')`,
    [sha256(token), grant.rows[0]!.id]
  )
  return token
}

/** Migrates the database; creates (or finds) the account, a new API key, and a website of each size. */
const prepare = async () => {
  await cbs(["migrate"])
  const existing = await withClient(benchUrl, (client) =>
    client.query<{ id: string }>("select account_id as id from users where lower(email) = lower($1)", [EMAIL])
  )
  const accountId =
    existing.rows[0] !== undefined
      ? Number(existing.rows[0].id)
      : Number(/account id: (\d+)/.exec(await cbs(["account", "create", "--email", EMAIL, "--name", "Bench Ltd"]))?.[1])
  const key = /API key: (\S+)/.exec(await cbs(["key", "create", "--account", EMAIL, "--name", "bench"]))?.[1]
  if (!Number.isInteger(accountId) || key === undefined) throw new Error("could not read the account id or API key")

  return withClient(benchUrl, async (client) => {
    const sites = new Map<number, number>()
    for (const size of SIZES) sites.set(size, await siteOfSize(client, accountId, size))
    // A table that has been in use has been vacuumed by autovacuum; without a visibility map the count(*) of both
    // servers would read the heap instead of the index alone.
    await client.query("vacuum (analyze) articles")
    // Written out now rather than by a checkpoint in the middle of the first measured run.
    await client.query("checkpoint")
    const siteId = sites.get(MAIN_SIZE)!
    const newest = await client.query<{ id: string }>(
      `select id from articles where site_id = $1 and status = 'published'
       order by published_at desc nulls last, id desc limit ${PATCH_ARTICLES}`,
      [siteId]
    )
    const version = await client.query<{ server_version: string }>("show server_version")
    return {
      key,
      token: await accessToken(client, accountId),
      siteId,
      sites,
      patchIds: newest.rows.map((row) => Number(row.id)),
      postgres: version.rows[0]!.server_version
    }
  })
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

/** The revision of MCP without initialize: each request carries its own envelope (`_meta`) and standard headers. */
const MODERN_REVISION = "2026-07-28"

/**
 * The same page sequence as `listRequests`, through the MCP tool `list_articles`: as a 2025 client sends it (no
 * revision header, so 2025-03-26 is assumed), or as a 2026-07-28 client does, with its per-request envelope.
 */
const mcpListRequests = (siteId: number, revision: "2025" | typeof MODERN_REVISION) => {
  let n = 0
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {}
  }
  return (request: autocannon.Request): autocannon.Request => {
    const args = { site_id: siteId, per_page: PER_PAGE, page: (n % PAGES) + 1 }
    const params =
      revision === "2025"
        ? { name: "list_articles", arguments: args }
        : { name: "list_articles", arguments: args, _meta: envelope }
    return {
      ...request,
      method: "POST",
      path: "/mcp",
      body: JSON.stringify({ jsonrpc: "2.0", id: n++, method: "tools/call", params })
    }
  }
}

/** The tool's answer to page 3, from a client of either revision, is the REST answer to page 3, or the comparison means nothing. */
const checkSameThroughMcp = async (base: string, siteId: number, key: string, token: string) => {
  const rest = await fetch(`${base}/api/v1/sites/${siteId}/articles?per_page=${PER_PAGE}&page=3`, {
    headers: { authorization: `Bearer ${key}` }
  })
  const expected = await rest.json()
  for (const [revision, headers] of [
    ["2025", mcpHeaders(token)],
    [MODERN_REVISION, modernMcpHeaders(token)]
  ] as const) {
    // The third request of the sequence asks for page 3.
    const next = mcpListRequests(siteId, revision)
    for (let i = 0; i < 2; i++) next({})
    const reply = await fetch(`${base}/mcp`, { method: "POST", headers, body: next({}).body as string })
    const text = await reply.text()
    const result = (JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: unknown } }).result
    if (reply.status !== 200 || result === undefined || result.isError === true) {
      throw new Error(`list_articles (${revision}) answered ${reply.status}: ${text.slice(0, 400)}`)
    }
    if (!isDeepStrictEqual(result.structuredContent, expected)) {
      throw new Error(`list_articles (${revision}) and GET answer page 3 differently: ${text.slice(0, 400)}`)
    }
  }
}

const mcpHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream"
})

/** The standard headers a 2026-07-28 client sends with a call (the server checks them against the body). */
const modernMcpHeaders = (token: string) => ({
  ...mcpHeaders(token),
  "mcp-protocol-version": MODERN_REVISION,
  "mcp-method": "tools/call",
  "mcp-name": "list_articles"
})

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

/** `meta.total` of each website's list is its exact number of articles. */
const checkTotals = async (base: string, headers: Record<string, string>, sites: ReadonlyMap<number, number>) => {
  for (const [size, id] of sites) {
    const response = await fetch(`${base}/api/v1/sites/${id}/articles?per_page=1`, { headers })
    const total = ((await response.json()) as { meta?: { total?: number } }).meta?.total
    if (total !== size) throw new Error(`website ${id} has ${size} articles, but meta.total says ${total}`)
  }
}

const failedShare = (run: Tally) => (run.non2xx + run.errors) / Math.max(1, run.requests + run.errors)

const throughput = (run: Tally) => run.requests / Math.max(run.seconds, 1e-9)

/** The latency below which `q` of the responses came, in ms. */
const percentile = (run: Tally, q: number) => quantile(run.latencies, q)

/**
 * One GET on a keep-alive connection of `agent`, once its body has been read: undefined for a 200, otherwise what
 * went wrong (the status, or the connection's error code).
 */
const getOnce = (agent: http.Agent, url: string, headers: Record<string, string>) =>
  new Promise<string | undefined>((resolve) => {
    const request = http.get(url, { agent, headers }, (response) => {
      response.resume()
      response.once("end", () => resolve(response.statusCode === 200 ? undefined : `status ${response.statusCode}`))
      response.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    request.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })

/** "3 failed" with what failed, e.g. "3 failed: 2 × ECONNRESET, 1 × status 500". */
const failedText = (reasons: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1)
  const parts = [...counts].map(([reason, count]) => `${count} × ${reason}`)
  return `${reasons.length} failed${parts.length === 0 ? "" : `: ${parts.join(", ")}`}`
}

/**
 * Latencies in ms of GETs of each path, one at a time on one connection, in SIZE_ROUNDS alternating rounds so that a
 * machine that changes speed weighs on every path alike; SIZE_WARMUP unmeasured requests of each first.
 */
const oneConnection = async (base: string, headers: Record<string, string>, paths: ReadonlyArray<string>) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const latencies = paths.map(() => [] as Array<number>)
  const failed: Array<string> = []
  const run = async (index: number, count: number, into?: Array<number>) => {
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      const failure = await getOnce(agent, `${base}${paths[index]}`, headers)
      if (failure !== undefined) failed.push(failure)
      into?.push(performance.now() - started)
    }
  }
  for (let index = 0; index < paths.length; index++) await run(index, SIZE_WARMUP)
  for (let round = 0; round < SIZE_ROUNDS; round++) {
    const order = paths.map((_, index) => index)
    if (round % 2 === 1) order.reverse()
    for (const index of order) await run(index, SIZE_REQUESTS / SIZE_ROUNDS, latencies[index])
  }
  agent.destroy()
  return { latencies, failed }
}

/**
 * An open-loop run: request i is sent at start + i / rate, whether or not the ones before it have been answered,
 * and its latency counts from that moment (a server that falls behind is charged for the wait it causes).
 */
const openLoop = async (
  base: string,
  headers: Record<string, string>,
  path: (i: number) => string,
  rate: number,
  seconds: number
) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 })
  const interval = 1000 / rate
  const total = Math.round(rate * seconds)
  const latencies: Array<number> = []
  const failed: Array<string> = []
  const pending: Array<Promise<void>> = []
  const start = performance.now() + 20
  for (let i = 0; i < total; i++) {
    const due = start + i * interval
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    pending.push(
      getOnce(agent, `${base}${path(i)}`, headers).then((failure) => {
        latencies.push(performance.now() - due)
        if (failure !== undefined) failed.push(failure)
      })
    )
  }
  await Promise.all(pending)
  agent.destroy()
  return { latencies, failed, total }
}

const verdict = (ok: boolean) => (ok ? "met" : "NOT MET")
const ratioText = (value: number) => `${value.toFixed(2)}×`

const report = (runs: ReadonlyArray<Tally>) => {
  const width = Math.max(32, ...runs.map((run) => run.label.length + 2))
  const cells = (values: ReadonlyArray<string>) =>
    console.log(values.map((value, i) => (i === 0 ? value.padEnd(width) : value.padStart(9))).join(""))
  const ms = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(1))
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
      ms(cpuPerRequest(run, "node")),
      ms(cpuPerRequest(run, "postgres"))
    ])
  }
  console.log("(node CPU: ms of CPU per request in the server process; pg CPU: in its PostgreSQL backends)")
}

const cpuPerRequest = (run: Tally, of: "node" | "postgres") =>
  run.cpu === undefined || run.requests === 0 ? undefined : run.cpu[of] / run.requests

const main = async () => {
  console.log(
    `${new Date().toISOString()}  ${os.cpus().length} CPUs  Node ${process.version}  load average ${loadAverage()}`
  )
  const exists = await withAdmin((client) => client.query("select 1 from pg_database where datname = $1", [database]))
  if (exists.rowCount === 0) await withAdmin((client) => client.query(`create database ${database}`))
  const { key, token, siteId, sites, patchIds, postgres } = await prepare()
  console.log(
    `PostgreSQL ${postgres}, database ${database}; websites ${[...sites].map(([size, id]) => `${id} (${size.toLocaleString("en")} articles)`).join(", ")}; PATCH articles ${patchIds.join(", ")}`
  )

  const [servicePort, baselinePort] = await Promise.all([freePort(), freePort()])
  const limits = { REQUESTS_PER_MINUTE: "100000000", EDITS_PER_DAY: "100000000" }
  const serviceChild = startChild(
    "service",
    [...profileArgs, "bin/cbs.js", "serve", "--port", String(servicePort)],
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
  const auth = { authorization: `Bearer ${key}` }
  await checkTotals(service.url, auth, sites)

  const closing: Array<string> = []
  const failures: Array<string> = []
  const runs: Array<Tally> = []

  if (ONLY.has("throughput")) {
    console.log(
      `${CONNECTIONS} connections; pages 1-${PAGES} of ${PER_PAGE}; the list measured in ${ROUNDS} rounds of ${LIST_SECONDS / ROUNDS} s per server, alternating, after ${WARMUP_SECONDS} s of warm-up each`
    )
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
    // One connection: the time a request takes when it does not queue behind 49 others.
    const serviceAlone = tally("service GET list, 1 connection", service)
    const baselineAlone = tally("baseline GET list, 1 connection", baseline)
    for (const run of [serviceAlone, baselineAlone]) await measure(run, ALONE_SECONDS, auth, list, 1)
    runs.push(serviceList, baselineList, serviceAlone, baselineAlone)
    const ratio = throughput(serviceList) / throughput(baselineList)
    const serviceCpu = cpuPerRequest(serviceList, "node")
    const baselineCpu = cpuPerRequest(baselineList, "node")
    const cpuRatio = serviceCpu === undefined || baselineCpu === undefined ? Number.NaN : serviceCpu / baselineCpu
    const aloneRatio = percentile(serviceAlone, 0.5) / percentile(baselineAlone, 0.5)
    console.log(
      `1 connection p50 service / baseline: ${ratioText(aloneRatio)} (target ≤ 1: ${verdict(aloneRatio <= 1)})`
    )
    console.log(`throughput target ≥ ${TARGET_RATIO * 100} %: ${verdict(ratio >= TARGET_RATIO)}`)
    console.log(`node CPU per request target ≤ ${TARGET_CPU_RATIO}×: ${verdict(cpuRatio <= TARGET_CPU_RATIO)}`)
    closing.push(`throughput service / baseline: ${(ratio * 100).toFixed(0)} %`)
    closing.push(`node CPU per request service / baseline: ${ratioText(cpuRatio)}`)
  }

  if (ONLY.has("patch")) {
    const patchHeaders = { ...auth, "content-type": "application/json" }
    await cannon(service.url, WARMUP_SECONDS, patchHeaders, patchRequests(patchIds))
    const patch = tally("service PATCH", service)
    await measure(patch, PATCH_SECONDS, patchHeaders, () => patchRequests(patchIds))
    runs.push(patch)
  }
  if (ONLY.has("mcp")) {
    await checkSameThroughMcp(service.url, siteId, key, token)
    const list = () => listRequests(siteId)
    const mcpList = () => mcpListRequests(siteId, "2025")
    const modernList = () => mcpListRequests(siteId, MODERN_REVISION)
    await cannon(service.url, WARMUP_SECONDS, mcpHeaders(token), mcpList())
    await cannon(service.url, WARMUP_SECONDS, modernMcpHeaders(token), modernList())
    const rest = tally("service GET list (beside MCP)", service)
    const mcp = tally("service MCP list_articles", service)
    const modern = tally(`service MCP list_articles, ${MODERN_REVISION}`, service)
    const runsOf = new Map([
      [rest, () => measure(rest, LIST_SECONDS / ROUNDS, auth, list)],
      [mcp, () => measure(mcp, LIST_SECONDS / ROUNDS, mcpHeaders(token), mcpList)],
      [modern, () => measure(modern, LIST_SECONDS / ROUNDS, modernMcpHeaders(token), modernList)]
    ])
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [rest, mcp, modern] : [modern, mcp, rest]
      for (const run of order) await runsOf.get(run)!()
    }
    runs.push(rest, mcp, modern)
    const restCpu = cpuPerRequest(rest, "node")
    const ratioTo = (run: Tally) => {
      const cpu = cpuPerRequest(run, "node")
      return restCpu === undefined || cpu === undefined ? Number.NaN : cpu / restCpu
    }
    const mcpRatio = ratioTo(mcp)
    const modernRatio = ratioTo(modern)
    console.log(
      `MCP tool call CPU target ≤ ${TARGET_MCP_CPU_RATIO}× a REST request's: ${verdict(mcpRatio <= TARGET_MCP_CPU_RATIO)}` +
        ` (${MODERN_REVISION}: ${ratioText(modernRatio)}, ${verdict(modernRatio <= TARGET_MCP_CPU_RATIO)})`
    )
    closing.push(
      `MCP tool call CPU / REST request CPU: ${ratioText(mcpRatio)} (${MODERN_REVISION}: ${ratioText(modernRatio)}; target ≤ ${TARGET_MCP_CPU_RATIO}×: ${verdict(Math.max(mcpRatio, modernRatio) <= TARGET_MCP_CPU_RATIO)})`
    )
  }
  if (runs.length > 0) report(runs)
  failures.push(...runs.filter((run) => failedShare(run) > MAX_FAILED).map((run) => run.label))

  if (ONLY.has("sizes") && SIZES.length > 1) {
    const smallest = SIZES[0]!
    const largest = SIZES[SIZES.length - 1]!
    const [from, to] = [new Date(Date.now() - 730 * 86_400_000), new Date()].map((d) => d.toISOString().slice(0, 10))
    const figures = [
      { what: "page 1", path: (id: number) => `/api/v1/sites/${id}/articles` },
      { what: "stats", path: (id: number) => `/api/v1/sites/${id}/stats?from=${from}&to=${to}` }
    ]
    for (const figure of figures) {
      const paths = [smallest, largest].map((size) => figure.path(sites.get(size)!))
      const { latencies, failed } = await oneConnection(service.url, auth, paths)
      const [small, large] = latencies.map((values) => quantile(values, 0.5)) as [number, number]
      const label = `${figure.what} p50 at ${largest.toLocaleString("en")} / at ${smallest.toLocaleString("en")} articles`
      console.log(
        `${figure.what}, 1 connection, ${SIZE_REQUESTS} requests each: p50 ${small.toFixed(2)} ms at ${smallest.toLocaleString("en")}, ${large.toFixed(2)} ms at ${largest.toLocaleString("en")}; ${label}: ${ratioText(large / small)} (target ≤ ${TARGET_SIZE_RATIO}×: ${verdict(large / small <= TARGET_SIZE_RATIO)})`
      )
      if (failed.length > 0) failures.push(`${figure.what}: ${failedText(failed)} requests`)
      if (figure.what === "page 1") closing.push(`${label}: ${ratioText(large / small)}`)
    }
  }

  if (ONLY.has("search") && SIZES.length > 1) {
    const smallest = SIZES[0]!
    const largest = SIZES[SIZES.length - 1]!
    const searchPath = (id: number, q = SEARCH_WORD) => `/api/v1/sites/${id}/articles?q=${q}`
    for (const size of [smallest, largest]) {
      const response = await fetch(`${service.url}${searchPath(sites.get(size)!)}`, { headers: auth })
      const total = ((await response.json()) as { meta?: { total?: number } }).meta?.total
      if (total !== SEARCH_MATCHES)
        throw new Error(`q=${SEARCH_WORD} found ${total} articles at ${size}, not ${SEARCH_MATCHES}`)
    }
    const paths = [smallest, largest].map((size) => searchPath(sites.get(size)!))
    const { latencies, failed } = await oneConnection(service.url, auth, paths)
    const [small, large] = latencies.map((values) => quantile(values, 0.5)) as [number, number]
    const label = `search page 1 p50 at ${largest.toLocaleString("en")} / at ${smallest.toLocaleString("en")} articles`
    console.log(
      `search page 1 (q=${SEARCH_WORD}, ${SEARCH_MATCHES} articles found on each website), 1 connection, ${SIZE_REQUESTS} requests each: p50 ${small.toFixed(2)} ms at ${smallest.toLocaleString("en")}, ${large.toFixed(2)} ms at ${largest.toLocaleString("en")}; ${label}: ${ratioText(large / small)} (target ≤ ${TARGET_SIZE_RATIO}×: ${verdict(large / small <= TARGET_SIZE_RATIO)})`
    )
    if (failed.length > 0) failures.push(`search: ${failedText(failed)} requests`)
    closing.push(
      `${label}: ${ratioText(large / small)} (target ≤ ${TARGET_SIZE_RATIO}×: ${verdict(large / small <= TARGET_SIZE_RATIO)})`
    )
    // The CPU of a search beside that of a plain list page, on the largest website, one connection, alternating.
    const fixed = (path: string) => () => (request: autocannon.Request) => ({
      ...request,
      method: "GET" as const,
      path
    })
    const largestId = sites.get(largest)!
    const listRun = tally("service GET list page 1 (beside search)", service)
    const searchRun = tally(`service GET search page 1 (q=${SEARCH_WORD})`, service)
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [listRun, searchRun] : [searchRun, listRun]
      for (const run of order) {
        const path = run === listRun ? `/api/v1/sites/${largestId}/articles` : searchPath(largestId)
        await measure(run, ALONE_SECONDS, auth, fixed(path), 1)
      }
    }
    report([listRun, searchRun])
    const cpuText = (run: Tally) =>
      `node ${cpuPerRequest(run, "node")?.toFixed(2) ?? "?"} ms, PostgreSQL ${cpuPerRequest(run, "postgres")?.toFixed(2) ?? "?"} ms`
    closing.push(
      `CPU per request on ${largest.toLocaleString("en")} articles: search page 1 ${cpuText(searchRun)}; plain list page 1 ${cpuText(listRun)}`
    )
    // Not a target: a word in one article in eight is counted and ranked through all its matches.
    const common = [smallest, largest].map((size) => searchPath(sites.get(size)!, "boiler"))
    const commonTimes: Array<number> = []
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (const path of common) {
      const times: Array<number> = []
      for (let i = 0; i < 6; i++) {
        const started = performance.now()
        const failure = await getOnce(agent, `${service.url}${path}`, auth)
        if (failure !== undefined) failures.push(`search q=boiler: ${failure}`)
        if (i > 0) times.push(performance.now() - started)
      }
      commonTimes.push(quantile(times, 0.5))
    }
    agent.destroy()
    console.log(
      `search page 1 for a word in one article in eight (q=boiler), not a target: p50 ${commonTimes[0]!.toFixed(1)} ms at ${smallest.toLocaleString("en")}, ${commonTimes[1]!.toFixed(1)} ms at ${largest.toLocaleString("en")}`
    )
  }

  if (ONLY.has("open-loop")) {
    const path = (i: number) => `/api/v1/sites/${siteId}/articles?per_page=${PER_PAGE}&page=${(i % PAGES) + 1}`
    await openLoop(service.url, auth, path, OPEN_RATE, OPEN_WARMUP_SECONDS)
    const { latencies, failed, total } = await openLoop(service.url, auth, path, OPEN_RATE, OPEN_SECONDS)
    const p99 = quantile(latencies, 0.99)
    console.log(
      `open loop, ${OPEN_RATE} requests/s for ${OPEN_SECONDS} s (${total} requests, ${failedText(failed)}) on ${MAIN_SIZE.toLocaleString("en")} articles: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${quantile(latencies, 1).toFixed(1)} ms (p99 target < ${TARGET_P99_MS} ms: ${verdict(p99 < TARGET_P99_MS)})`
    )
    if (failed.length > total * MAX_FAILED) failures.push(`open loop: ${failedText(failed)}`)
    closing.push(`open-loop ${OPEN_RATE}/s p99: ${p99.toFixed(0)} ms`)
  }

  console.log(`load average at the end, this benchmark included: ${loadAverage()}`)
  for (const failure of failures) console.log(`${failure}: more than ${MAX_FAILED * 100} % of requests failed`)
  if (failures.length > 0) {
    for (const { name, log } of children) console.log(`--- last lines of the ${name} log ---\n${logTail(log)}`)
  }
  console.log("")
  for (const line of closing) console.log(line)
  return failures.length === 0 ? 0 : 1
}

const exitCode = await main().catch((error: unknown) => {
  console.log(`bench:api failed: ${error instanceof Error ? error.message : String(error)}`)
  for (const { name, log } of children) console.log(`--- last lines of the ${name} log ---\n${logTail(log)}`)
  return 1
})
await cleanup()
process.exit(exitCode)
