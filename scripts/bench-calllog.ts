// The call log at ten million rows, on a real PostgreSQL, through the compiled `cbs`:
//   - seeding: 10,000,000 calls over the last 90 days for 1,000 accounts, day by day as they would arrive, in
//     statements of at most 50,000 rows generated in PostgreSQL (the figure is the database's insert rate into the
//     partitioned log as it grows, not the driver's); insert throughput of the first and the last million rows, per
//     second of wall time and per second of the inserting backend's CPU time (the target is judged on the latter:
//     on a shared machine the wall time of a ten-minute seeding moves with everyone else's load);
//   - the activity page (`GET /activity`, signed in, one account) through `cbs serve`: p50 at 100,000 rows (paused
//     there) and at 10,000,000;
//   - retention of one day's calls: the service's drop of the oldest day partition, against a `delete` of the same
//     day's rows from a copy of the log as one table with the indexes it had before partitions (the old way);
//   - the migration of a 10,000,000-row log of the schema before partitions (a second database): `cbs migrate`
//     while a writer inserts a call every 5 ms, the longest wait of a write, and every row kept.
// It ends with three lines: `insert throughput end / start: R`, `activity page p50 at 10,000,000 / at 100,000
// rows: R×` and `retention of one day: drop partition N ms / delete N ms`.
// Run with `nice` on a shared machine: npm run bench:calllog
//   DATABASE_URL   an admin connection; default postgres://postgres@127.0.0.1:5432/postgres (it creates and drops
//                  databases of its own)
//   BENCH_ROWS     calls to seed, default 10000000
//   BENCH_ONLY     some of log,migration (default both)
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { loadAverage } from "./LoadAverage.js"
import { hiddenField, makeBrowser } from "./OAuthSignIn.js"
import { adminUrl, cpuMs, databaseUrl, freePort, runCbs, withClient } from "./Support.js"

const ROWS = Number(process.env["BENCH_ROWS"] ?? "10000000")
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "log,migration").split(","))
const DAYS = 90
const ACCOUNTS = 1_000
const CHUNK = 50_000
const EARLY_ROWS = 100_000
const EDGE_ROWS = 1_000_000
const PAGE_WARMUP = 20
const PAGE_REQUESTS = 200
const WRITE_EVERY_MS = 5
const TARGET_THROUGHPUT = 0.8
const TARGET_PAGE = 1.5
const DAY_MS = 86_400_000
const EMAIL = "bench-calllog@example.com"
const PASSWORD = "bench-calllog-password"

const root = fileURLToPath(new URL("..", import.meta.url))
const logDatabase = `cbs_calllog_bench_${process.pid}`
const migrationDatabase = `cbs_calllog_migrate_${process.pid}`
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-bench-calllog-"))
const children: Array<ChildProcess> = []

const say = (line: string) => process.stdout.write(`${line}\n`)
const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const thousands = (n: number) => n.toLocaleString("en-GB")

const env = (database: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: databaseUrl(adminUrl, database),
  DATA_DIR: workDir,
  SEED_DEMO: "false",
  ...extra
})

/** Runs `cbs` with the arguments to completion; its stdout. */
const cbs = (database: string, args: ReadonlyArray<string>) => runCbs(args, env(database))

const createDatabase = (name: string) =>
  withClient(adminUrl, async (admin) => {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.query(`create database ${name}`)
  })

const dropDatabases = () =>
  withClient(adminUrl, async (admin) => {
    for (const name of [logDatabase, migrationDatabase])
      await admin.query(`drop database if exists ${name} with (force)`)
  })

/**
 * 1,000 accounts; with `signIn`, the first is the one whose activity page is measured, with a user who can sign in
 * (made by `cbs`, which also migrates the database: the migration phase makes its accounts in SQL only).
 */
const makeAccounts = async (database: string, client: pg.Client, signIn: boolean) => {
  if (signIn) await cbs(database, ["account", "create", "--email", EMAIL, "--name", "Measured", "--password", PASSWORD])
  await client.query(
    `insert into accounts (name) select 'Bench account ' || g from generate_series(${signIn ? 2 : 1}, ${ACCOUNTS}) g`
  )
  const rows = await client.query<{ id: string }>("select id from accounts order by id")
  return rows.rows.map((row) => Number(row.id))
}

/**
 * Inserts `count` calls of the UTC day starting at `dayStart`, rows `first`… of the seeding, spread over the day and
 * the accounts (runs of seven calls each; the measured account, `accounts[0]`, gets a thousandth), as the service writes them: API and MCP
 * calls, a quarter naming an article, a few failures.
 */
const insertCalls = (
  client: pg.Client,
  accounts: ReadonlyArray<number>,
  dayStart: number,
  first: number,
  count: number
) =>
  client.query(
    `insert into audit_log (at, account_id, origin, method, path, tool, article_id, status, duration_ms, request_id)
     select $1::timestamptz + (random() * 86399999) * interval '1 millisecond',
       ($2::bigint[])[1 + (g / 7) % ${ACCOUNTS}],
       case when g % 5 = 0 then 'MCP' else 'API' end,
       case when g % 5 = 0 then null else 'GET' end,
       case when g % 5 = 0 then null else '/api/v1/sites/' || (g % 97) || '/articles' end,
       case when g % 5 = 0 then 'list_articles' end,
       case when g % 4 = 0 then 1 + g % 5000 end,
       case when g % 50 = 0 then 404 else 200 end,
       (g % 40) + 2,
       md5(g::text)
     from generate_series($3::bigint, $3::bigint + $4::bigint - 1) g`,
    [new Date(dayStart).toISOString(), accounts, first, count]
  )

/** Rows per second of the first and the last EDGE_ROWS: of wall time, and of the inserting backend's CPU time. */
interface Seeding {
  readonly start: number
  readonly end: number
  readonly startCpu: number
  readonly endCpu: number
}

/**
 * Seeds ROWS calls over the DAYS days ending today, oldest day first, each day in statements of at most CHUNK rows;
 * `at(rows)` runs when the seeding reaches `rows` (a pause: nothing else is inserting meanwhile). Rows per second of
 * the first and the last EDGE_ROWS.
 */
const seed = async (
  client: pg.Client,
  accounts: ReadonlyArray<number>,
  pauses: ReadonlyArray<{ readonly rows: number; readonly run: () => Promise<void> }>
): Promise<Seeding> => {
  const today = Date.parse(`${day(Date.now())}T00:00:00Z`)
  const perDay = Math.ceil(ROWS / DAYS)
  const timings: Array<{ rows: number; ms: number; cpu: number }> = []
  const backend = Number((await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid)
  let done = 0
  for (let d = DAYS - 1; d >= 0 && done < ROWS; d--) {
    const dayStart = today - d * DAY_MS
    const dayEnd = Math.min(ROWS, done + perDay)
    while (done < dayEnd) {
      const pause = pauses.find((p) => p.rows > done)
      const count = Math.min(CHUNK, dayEnd - done, pause === undefined ? CHUNK : pause.rows - done)
      const started = process.hrtime.bigint()
      const cpuBefore = cpuMs(backend) ?? 0
      await insertCalls(client, accounts, dayStart, done, count)
      timings.push({ rows: count, ms: ms(started), cpu: (cpuMs(backend) ?? 0) - cpuBefore })
      done += count
      for (const pause of pauses) if (pause.rows === done) await pause.run()
      if (done % 1_000_000 < count)
        say(`  seeded ${thousands(done)} calls (${day(dayStart)}), load average ${loadAverage()}`)
    }
  }
  const rate = (slice: ReadonlyArray<{ rows: number; ms: number; cpu: number }>, of: "ms" | "cpu") =>
    slice.reduce((sum, t) => sum + t.rows, 0) / (slice.reduce((sum, t) => sum + t[of], 0) / 1000)
  const edge = Math.max(1, Math.round(EDGE_ROWS / CHUNK))
  const [first, last] = [timings.slice(0, edge), timings.slice(-edge)]
  return { start: rate(first, "ms"), end: rate(last, "ms"), startCpu: rate(first, "cpu"), endCpu: rate(last, "cpu") }
}

const startServer = async (database: string) => {
  const port = await freePort()
  const log = path.join(workDir, "serve.log")
  const fd = openSync(log, "w")
  const child = spawn(process.execPath, ["bin/cbs.js", "serve", "--port", String(port)], {
    cwd: root,
    env: env(database, { HOST: "127.0.0.1", PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
    stdio: ["ignore", fd, fd]
  })
  closeSync(fd)
  children.push(child)
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cbs serve exited: ${readFileSync(log, "utf8").slice(-2000)}`)
    try {
      if ((await fetch(`${origin}/readyz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("cbs serve did not answer /readyz within 60 s")
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const browser = makeBrowser(origin)
  const form = await browser.get("/signin?return_to=%2Factivity")
  const signedIn = await browser.postForm("/signin", {
    email: EMAIL,
    password: PASSWORD,
    return_to: "/activity",
    csrf: hiddenField(form.text, "csrf")
  })
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`)
  return { child, browser }
}

/** p50 of the measured account's activity page, in ms, on one connection, after a warm-up. */
const pageP50 = async (browser: ReturnType<typeof makeBrowser>) => {
  const times: Array<number> = []
  for (let i = 0; i < PAGE_WARMUP + PAGE_REQUESTS; i++) {
    const started = process.hrtime.bigint()
    const reply = await browser.get("/activity")
    const took = ms(started)
    if (reply.status !== 200 || !reply.text.includes("<tbody><tr>")) {
      throw new Error(`/activity answered ${reply.status} without calls: ${reply.text.slice(0, 3000)}`)
    }
    if (i >= PAGE_WARMUP) times.push(took)
  }
  return median(times)
}

const timed = async (client: pg.Client, query: string, values: ReadonlyArray<unknown> = []) => {
  const started = process.hrtime.bigint()
  const result = await client.query(query, [...values])
  return { ms: ms(started), rows: result.rowCount ?? 0 }
}

const benchLog = async () => {
  say(`Seeding ${thousands(ROWS)} calls over ${DAYS} days for ${ACCOUNTS} accounts (${logDatabase})`)
  await createDatabase(logDatabase)
  await cbs(logDatabase, ["migrate"])
  return withClient(databaseUrl(adminUrl, logDatabase), async (client) => {
    const accounts = await makeAccounts(logDatabase, client, true)
    const today = Date.parse(`${day(Date.now())}T00:00:00Z`)
    // The days before yesterday: the service would have added each one ahead of its time.
    await client.query(
      `select audit_log_add_day(d::date) from generate_series($1::date, $2::date, interval '1 day') d`,
      [day(today - (DAYS - 1) * DAY_MS), day(today)]
    )
    const { child, browser } = await startServer(logDatabase)
    try {
      let early = 0
      const seeding = await seed(client, accounts, [
        {
          rows: EARLY_ROWS,
          run: async () => {
            early = await pageP50(browser)
            say(`  activity page p50 at ${thousands(EARLY_ROWS)} rows: ${early.toFixed(2)} ms`)
          }
        }
      ])
      await client.query("analyze audit_log")
      const late = await pageP50(browser)
      say(`  activity page p50 at ${thousands(ROWS)} rows: ${late.toFixed(2)} ms`)
      say(
        `  insert throughput: first ${thousands(EDGE_ROWS)} rows ${thousands(Math.round(seeding.start))} rows/s, last ${thousands(Math.round(seeding.end))} rows/s; per second of the inserting backend's CPU ${thousands(Math.round(seeding.startCpu))} and ${thousands(Math.round(seeding.endCpu))}`
      )

      // The old way on a copy: the log as one table with the indexes it had before partitions.
      say(`Copying the log into one table with the old indexes (load average ${loadAverage()})`)
      await client.query(`create table audit_log_copy as select * from audit_log`)
      await client.query("alter table audit_log_copy add primary key (id)")
      await client.query("create index on audit_log_copy (article_id, at desc, id desc) where article_id is not null")
      await client.query("create index on audit_log_copy (account_id, at desc)")
      await client.query("create index on audit_log_copy (at)")
      await client.query("vacuum analyze audit_log_copy")
      const oldest = day(today - (DAYS - 1) * DAY_MS)
      const next = day(today - (DAYS - 2) * DAY_MS)
      const [count] = (
        await client.query<{ n: string }>("select count(*) as n from audit_log where at < $1::timestamptz", [
          `${next}T00:00:00Z`
        ])
      ).rows
      const byDelete = await timed(client, "delete from audit_log_copy where at < $1::timestamptz", [
        `${next}T00:00:00Z`
      ])
      const vacuum = await timed(client, "vacuum audit_log_copy")
      const byDrop = await timed(client, "select audit_log_drop_days_before($1::date)", [next])
      say(
        `  one day's calls (${oldest}, ${thousands(Number(count!.n))} rows): drop partition ${byDrop.ms.toFixed(1)} ms; delete ${byDelete.ms.toFixed(0)} ms (${byDelete.rows} rows) and the vacuum after it ${vacuum.ms.toFixed(0)} ms`
      )
      const size = await client.query<{ log: string; copy: string }>(
        "select pg_size_pretty(sum(pg_total_relation_size(c.oid))) as log, pg_size_pretty(pg_total_relation_size('audit_log_copy')) as copy from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'audit_log'::regclass"
      )
      say(`  on disk: the partitioned log ${size.rows[0]!.log}, the copy ${size.rows[0]!.copy}`)
      return { seeding, early, late, drop: byDrop.ms, delete: byDelete.ms }
    } finally {
      child.kill("SIGTERM")
    }
  })
}

/** A database at migration 0010 (the schema before day partitions), recorded as the service's migrator records it. */
const schemaBeforePartitions = async (client: pg.Client) => {
  const dir = path.join(root, "migrations")
  const files = readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file) && Number(file.slice(0, 4)) <= 10)
    .sort()
    .map((file) => ({
      id: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      text: readFileSync(path.join(dir, file), "utf8")
    }))
  await client.query("begin")
  for (const file of files) await client.query(file.text)
  await client.query(
    "create table schema_migrations (migration_id integer primary key, created_at timestamptz not null default now(), name text not null)"
  )
  for (const file of files) {
    await client.query("insert into schema_migrations (migration_id, name) values ($1, $2)", [file.id, file.name])
  }
  await client.query("commit")
}

const benchMigration = async () => {
  say(`Migrating a ${thousands(ROWS)}-row log of the schema before partitions (${migrationDatabase})`)
  await createDatabase(migrationDatabase)
  const url = databaseUrl(adminUrl, migrationDatabase)
  return withClient(url, async (client) => {
    await schemaBeforePartitions(client)
    const accounts = await makeAccounts(migrationDatabase, client, false)
    await seed(client, accounts, [])
    await client.query("analyze audit_log")
    say(
      `  seeded; cbs migrate with a writer inserting a call every ${WRITE_EVERY_MS} ms (load average ${loadAverage()})`
    )
    const writer = new pg.Client({ connectionString: url })
    await writer.connect()
    const waits: Array<number> = []
    let writing = true
    const writes = (async () => {
      while (writing) {
        const started = process.hrtime.bigint()
        await writer.query(
          "insert into audit_log (at, account_id, origin, method, path, status, duration_ms) values (now(), $1, 'API', 'GET', '/api/v1/sites', 200, 3)",
          [accounts[0]]
        )
        waits.push(ms(started))
        await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS))
      }
    })()
    const started = process.hrtime.bigint()
    const out = await cbs(migrationDatabase, ["migrate"])
    const took = ms(started)
    writing = false
    await writes
    await writer.end()
    const [counted] = (await client.query<{ n: string }>("select count(*) as n from audit_log")).rows
    const kept = Number(counted!.n)
    const expected = ROWS + waits.length
    say(`  ${out.trim().split("\n").join("; ")}`)
    say(
      `  cbs migrate took ${(took / 1000).toFixed(1)} s; ${waits.length} writes meanwhile, the longest waited ${Math.max(...waits).toFixed(1)} ms (p99 ${percentile(waits, 99).toFixed(1)} ms, p50 ${median(waits).toFixed(1)} ms); rows ${thousands(kept)} of ${thousands(expected)} ${kept === expected ? "(every row kept)" : "(ROWS MISSING)"}`
    )
    return { took, longest: Math.max(...waits), kept: kept === expected }
  })
}

const main = async () => {
  execFileSync(process.execPath, ["scripts/build.js", "--if-stale"], { cwd: root, stdio: "inherit" })
  say(`bench:calllog ${new Date().toISOString()}, load average ${loadAverage()}`)
  try {
    const log = ONLY.has("log") ? await benchLog() : undefined
    if (log !== undefined)
      await withClient(adminUrl, (admin) => admin.query(`drop database ${logDatabase} with (force)`))
    const migration = ONLY.has("migration") ? await benchMigration() : undefined
    say(`load average at the end ${loadAverage()}`)
    if (migration !== undefined && !migration.kept) process.exitCode = 1
    if (log !== undefined) {
      // Judged on the inserting backend's CPU time: the wall time of a ten-minute seeding on a shared machine moves
      // with the other tenants' load (both are printed).
      const throughput = log.seeding.endCpu / log.seeding.startCpu
      const wall = log.seeding.end / log.seeding.start
      const page = log.late / log.early
      say(
        `insert throughput end / start: ${throughput.toFixed(2)} per second of the backend's CPU, ${wall.toFixed(2)} per second of wall time (target ≥ ${TARGET_THROUGHPUT}, ${throughput >= TARGET_THROUGHPUT ? "met" : "NOT met"})`
      )
      say(
        `activity page p50 at ${thousands(ROWS)} / at ${thousands(EARLY_ROWS)} rows: ${page.toFixed(2)}× (target ≤ ${TARGET_PAGE}×, ${page <= TARGET_PAGE ? "met" : "NOT met"})`
      )
      say(`retention of one day: drop partition ${log.drop.toFixed(1)} ms / delete ${log.delete.toFixed(0)} ms`)
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM")
    await dropDatabases()
    rmSync(workDir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:calllog failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exitCode = 1
})
