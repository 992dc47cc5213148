// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AuditLog, DAYS_AHEAD } from "../src/Audit/AuditLog.js"
import { AuditRepo, type Days } from "../src/Audit/Repo.js"
import type { AuditEntry } from "../src/Domain/CallLog.js"
import { toCalendarDate } from "../src/Domain/Dates.js"
import { cbs } from "./support/Cbs.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const DAY = 86_400_000
const dayOf = (ms: number) => toCalendarDate(new Date(ms))
const partitionOf = (day: string) => `audit_log_${day.replaceAll("-", "")}`
/** Every day from `from` to `to`, inclusive. */
const daysFrom = (days: Days) => {
  const all: Array<string> = []
  for (let t = Date.parse(`${days.from}T00:00:00Z`); t <= Date.parse(`${days.to}T00:00:00Z`); t += DAY)
    all.push(dayOf(t))
  return all
}

const entry = (at: string, fields: Partial<AuditEntry> = {}): AuditEntry => ({
  at,
  account_id: null,
  api_key_id: null,
  user_id: null,
  origin: "API",
  method: "GET",
  path: "/api/v1/sites",
  tool: null,
  article_id: null,
  status: 200,
  duration_ms: 1,
  request_id: null,
  revision: null,
  note: null,
  ...fields
})

/** The partition that holds the call with this request id. */
const partitionHolding = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ part: string }>`select tableoid::regclass::text as part from audit_log where request_id = ${requestId}`
  ).pipe(
    Effect.map((rows) => rows.map((row) => row.part)),
    Effect.orDie
  )

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

/**
 * Every node of a plan that reads a table of the call log, with the index it reads it through, and whether its rows
 * are sorted on their way to the nearest Limit above it (rather than read in order, so that the read stops there).
 */
const logScans = (plan: unknown) => {
  const scans: Array<{ relation: string; node: string; index: string | undefined; sortedBelowLimit: boolean }> = []
  const visit = (node: PlanNode, sorted: boolean) => {
    const sortedHere = node["Node Type"] === "Limit" ? false : sorted || node["Node Type"] === "Sort"
    if (node["Relation Name"]?.startsWith("audit_log") === true) {
      scans.push({
        relation: node["Relation Name"],
        node: node["Node Type"],
        index: node["Index Name"],
        sortedBelowLimit: sortedHere
      })
    }
    for (const child of node.Plans ?? []) visit(child, sortedHere)
  }
  for (const root of plan as ReadonlyArray<{ readonly Plan: PlanNode }>) visit(root.Plan, false)
  return scans
}

layer(TestServerLive)("the call log's day partitions", (it) => {
  describe("partitions", () => {
    it.effect(
      "the log is partitioned by range of `at`, with a default partition and the days from yesterday to a week ahead",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [table] = yield* sql<{ strategy: string; key: string }>`
          select p.partstrat as strategy, pg_get_partkeydef(p.partrelid) as key
          from pg_partitioned_table p where p.partrelid = 'audit_log'::regclass`
          assert.deepStrictEqual(table, { strategy: "r", key: "RANGE (at)" })
          const [fallback] = yield* sql<{ bound: string }>`
          select pg_get_expr(relpartbound, oid) as bound from pg_class where relname = 'audit_log_default'`
          assert.strictEqual(fallback!.bound, "DEFAULT")
          // The server's upkeep ran at its start, on the wall clock.
          const days = yield* Effect.flatMap(AuditRepo, (repo) => repo.days)
          const now = Date.now()
          for (let i = -1; i <= DAYS_AHEAD; i++) assert.include(days, dayOf(now + i * DAY))
        }).pipe(Effect.provide(AuditRepo.Default))
    )

    it.effect("a partition holds exactly its UTC day: 00:00:00 is the day's first instant, 23:59:59.999 its last", () =>
      Effect.gen(function* () {
        const audit = yield* AuditLog
        const repo = yield* AuditRepo
        yield* repo.addDay("2098-05-06")
        yield* audit.record(entry("2098-05-05T23:59:59.999Z", { request_id: "edge-before" }))
        yield* audit.record(entry("2098-05-06T00:00:00.000Z", { request_id: "edge-first" }))
        yield* audit.record(entry("2098-05-06T23:59:59.999Z", { request_id: "edge-last" }))
        yield* audit.record(entry("2098-05-07T00:00:00.000Z", { request_id: "edge-after" }))
        assert.deepStrictEqual(yield* partitionHolding("edge-before"), ["audit_log_default"])
        assert.deepStrictEqual(yield* partitionHolding("edge-first"), ["audit_log_20980506"])
        assert.deepStrictEqual(yield* partitionHolding("edge-last"), ["audit_log_20980506"])
        assert.deepStrictEqual(yield* partitionHolding("edge-after"), ["audit_log_default"])
      }).pipe(Effect.provide(AuditRepo.Default))
    )
  })

  describe("the default partition", () => {
    it.effect(
      "a call for a day with no partition still lands (in the default partition), and the next upkeep reports it and moves it into its day's partition",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.now())
          const audit = yield* AuditLog
          const repo = yield* AuditRepo
          assert.notInclude(yield* repo.days, "2099-03-04")
          yield* audit.record(entry("2099-03-04T10:00:00Z", { request_id: "no-partition-yet" }))
          assert.deepStrictEqual(yield* partitionHolding("no-partition-yet"), ["audit_log_default"])

          const done = yield* audit.maintain
          assert.deepInclude(done.unpartitioned, { day: "2099-03-04", calls: 1 })
          assert.include(done.added, "2099-03-04")
          assert.deepStrictEqual(yield* partitionHolding("no-partition-yet"), ["audit_log_20990304"])
          assert.deepStrictEqual(yield* repo.defaultDays, [])
        }).pipe(Effect.provide(AuditRepo.Default))
    )

    it.effect("cbs audit prune warns of calls it found in the default partition, with their days", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const audit = yield* AuditLog
        yield* audit.record(entry("2099-04-05T10:00:00Z", { request_id: "reported-by-prune" }))
        const result = yield* cbs("audit", "prune")
        assert.isTrue(result.ok, result.stderr)
        assert.match(
          result.stdout,
          /^Warning: 1 call was recorded for days that had no partition of the call log \(2099-04-05: 1\)/m
        )
        assert.deepStrictEqual(yield* partitionHolding("reported-by-prune"), ["audit_log_20990405"])
      })
    )
  })

  describe("retention", () => {
    it.effect(
      "drops whole day partitions before the days kept and keeps the partitions and calls of the days within them",
      () =>
        Effect.gen(function* () {
          const now = Date.now()
          yield* TestClock.setTime(now)
          const audit = yield* AuditLog
          const repo = yield* AuditRepo
          const kept = yield* audit.daysKept
          const old = dayOf(now - 100 * DAY)
          const lastGone = dayOf(Date.parse(`${kept.from}T00:00:00Z`) - DAY)
          const recent = dayOf(now - 10 * DAY)
          for (const day of [old, lastGone, kept.from, recent]) {
            yield* repo.addDay(day)
            yield* audit.record(entry(`${day}T12:00:00Z`, { request_id: `retention-${day}` }))
          }
          const done = yield* audit.maintain
          assert.includeMembers([...done.dropped], [old, lastGone])
          assert.notInclude(done.dropped, kept.from)
          const days = yield* repo.days
          assert.notInclude(days, old)
          assert.notInclude(days, lastGone)
          assert.includeMembers(days, [kept.from, recent])
          assert.deepStrictEqual(yield* partitionHolding(`retention-${old}`), [])
          assert.deepStrictEqual(yield* partitionHolding(`retention-${lastGone}`), [])
          assert.deepStrictEqual(yield* partitionHolding(`retention-${kept.from}`), [partitionOf(kept.from)])
          assert.deepStrictEqual(yield* partitionHolding(`retention-${recent}`), [partitionOf(recent)])
          // The partitions are gone from the catalog, not just emptied.
          const sql = yield* SqlClient.SqlClient
          const [left] = yield* sql<{ n: number }>`
          select count(*)::int as n from pg_class where relname = ${partitionOf(old)}`
          assert.strictEqual(left!.n, 0)
        }).pipe(Effect.provide(AuditRepo.Default))
    )
  })

  describe("reads", () => {
    it.effect("the activity pages' reads scan only the partitions of their days, each through its index in order", () =>
      Effect.gen(function* () {
        const now = Date.now()
        yield* TestClock.setTime(now)
        const app = yield* TestApp
        const audit = yield* AuditLog
        const repo = yield* AuditRepo
        const { accountId } = yield* app.makeAccount()
        const article = yield* app.makeArticle(yield* app.makeSite(accountId))
        const kept = yield* audit.daysKept
        const keptDays = daysFrom(kept)
        // Every day kept has its partition, as a running service sees to it: then the default one is not read.
        for (const day of keptDays) yield* repo.addDay(day)
        for (const day of keptDays.slice(-3)) {
          yield* audit.record(entry(`${day}T08:00:00Z`, { account_id: accountId, article_id: article }))
        }
        const page = { limit: 51, offset: 0 }
        const expectPartitions = (plan: unknown, days: ReadonlyArray<string>, index: string) => {
          const scans = logScans(plan)
          assert.sameMembers(
            scans.map((scan) => scan.relation),
            days.map(partitionOf)
          )
          for (const scan of scans) {
            assert.strictEqual(scan.index, `${scan.relation}_${index}`, JSON.stringify(scan))
            // Read in the index's order (partitions in order, or merged), so that the read stops at the page.
            assert.isFalse(scan.sortedBelowLimit, JSON.stringify(scan))
          }
        }
        expectPartitions(
          yield* repo.plans.activityOfAccount(accountId, { days: kept, ...page }),
          keptDays,
          "account_id_at_id_idx"
        )
        expectPartitions(
          yield* repo.plans.activityOfAccount(accountId, { days: kept, origin: "MCP", ...page }),
          keptDays,
          "account_id_at_id_idx"
        )
        expectPartitions(
          yield* repo.plans.activityOfArticle(article, { days: kept, ...page }),
          keptDays,
          "article_id_at_id_idx"
        )
        // A narrower range of days reads only its own days.
        const three = { from: keptDays.at(-3)!, to: keptDays.at(-1)! }
        expectPartitions(
          yield* repo.plans.activityOfAccount(accountId, { days: three, ...page }),
          keptDays.slice(-3),
          "account_id_at_id_idx"
        )
        expectPartitions(
          yield* repo.plans.activityOfArticle(article, { days: three, ...page }),
          keptDays.slice(-3),
          "article_id_at_id_idx"
        )
        // And the pages show the calls, newest first.
        const rows = yield* audit.activityOfAccount(accountId, { limit: 10, offset: 0 })
        assert.deepStrictEqual(
          rows.filter((row) => row.kind === "call").map((row) => row.at.slice(0, 10)),
          keptDays.slice(-3).reverse()
        )
      }).pipe(Effect.provide(AuditRepo.Default))
    )

    it.effect(
      "a page read from the last week alone is the page read from every day kept, also when a change older than the week comes between",
      () =>
        Effect.gen(function* () {
          const now = Date.now()
          yield* TestClock.setTime(now)
          const sql = yield* SqlClient.SqlClient
          const app = yield* TestApp
          const audit = yield* AuditLog
          const repo = yield* AuditRepo
          const { accountId } = yield* app.makeAccount()
          const article = yield* app.makeArticle(yield* app.makeSite(accountId))
          const call = (ago: number) =>
            audit.record(
              entry(new Date(now - ago).toISOString(), {
                account_id: accountId,
                article_id: article,
                path: `/ago/${ago}`
              })
            )
          for (const hours of [1, 2, 3]) yield* call(hours * 3_600_000)
          yield* call(8 * DAY)
          yield* sql`insert into article_revisions (article_id, number, origin, reason, body, created_at)
          values (${article}, 1, 'editor', 'ten days ago', '<p>x</p>', ${new Date(now - 10 * DAY).toISOString()})`
          const kept = yield* audit.daysKept
          for (const [limit, offset] of [
            [3, 0],
            [4, 0],
            [5, 0],
            [2, 2]
          ] as const) {
            const page = { limit, offset }
            assert.deepStrictEqual(
              yield* audit.activityOfAccount(accountId, page),
              yield* repo.activityOfAccount(accountId, { ...page, days: kept }),
              `account, limit ${limit}, offset ${offset}`
            )
            assert.deepStrictEqual(
              yield* audit.activityOfArticle(article, page),
              yield* repo.activityOfArticle(article, { ...page, days: kept }),
              `article, limit ${limit}, offset ${offset}`
            )
          }
          // The fourth line is the call of eight days ago, not the change of ten days ago that the last week's read
          // alone would put there.
          const four = yield* audit.activityOfAccount(accountId, { limit: 4, offset: 0 })
          assert.deepStrictEqual(
            four.map((row) => row.path),
            ["/ago/3600000", "/ago/7200000", "/ago/10800000", `/ago/${8 * DAY}`]
          )
        }).pipe(Effect.provide(AuditRepo.Default))
    )

    it.effect("a range with a day that has no partition also reads the default partition, so no call is missed", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const app = yield* TestApp
        const audit = yield* AuditLog
        const repo = yield* AuditRepo
        const { accountId } = yield* app.makeAccount()
        yield* audit.record(entry("2097-01-02T08:00:00Z", { account_id: accountId, request_id: "in-default" }))
        const days = { from: "2097-01-01", to: "2097-01-03" }
        const scans = logScans(yield* repo.plans.activityOfAccount(accountId, { days, limit: 51, offset: 0 }))
        assert.deepStrictEqual(
          scans.map((scan) => scan.relation),
          ["audit_log_default"]
        )
        const rows = yield* repo.activityOfAccount(accountId, { days, limit: 51, offset: 0 })
        assert.deepStrictEqual(
          rows.map((row) => row.at),
          ["2097-01-02T08:00:00Z"]
        )
      }).pipe(Effect.provide(AuditRepo.Default))
    )
  })
})
