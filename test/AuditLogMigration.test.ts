// @tags: engine
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { layerEmbedded, layerPostgres, sqlFileLoader } from "../src/Sql/Database.js"
import { cbs } from "./support/Cbs.js"
import { scopedDatabase } from "./support/TestDatabase.js"

/** A new, empty database of its own: on PostgreSQL with DATABASE_URL, else an embedded one in memory. */
const NewDatabase = Layer.unwrapScoped(
  Effect.gen(function* () {
    const url = process.env["DATABASE_URL"]
    if (url === undefined || url === "") return layerEmbedded({})
    return layerPostgres(Redacted.make(yield* scopedDatabase(url)), 2)
  })
)

/** The schema as it was before the call log was partitioned: the migrations up to 0010. */
const migrateUpTo = (last: number) =>
  Migrator.make({})({
    loader: Effect.map(sqlFileLoader, (all) => all.filter(([id]) => id <= last)),
    table: "schema_migrations"
  }).pipe(Effect.provide(NodeContext.layer))

const CALLS = 3_000

/** What identifies the log's rows as a whole: how many, their ids, and their contents. */
const fingerprint = (table: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number; ids: string; contents: string }>`
      select count(*)::int as n, coalesce(sum(id), 0)::text as ids,
        md5(coalesce(string_agg(
          concat_ws('|', id, extract(epoch from at), account_id, api_key_id, user_id, origin, method, path, tool,
            article_id, status, duration_ms, request_id), ',' order by id), '')) as contents
      from ${sql(table)}`
  ).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

const isPartitioned = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ kind: string }>`select relkind::text as kind from pg_class where oid = 'audit_log'::regclass`
).pipe(
  Effect.map((rows) => rows[0]?.kind === "p"),
  Effect.orDie
)

describe("cbs migrate and the call log's day partitions", () => {
  it.scoped(
    "on a database of the schema before day partitions, with calls in the log, cbs migrate keeps every call, each in its day's partition, and drops the old table",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* migrateUpTo(10)
        const [account] = yield* sql<{ id: number }>`
          insert into accounts (name) values ('Before partitions') returning id`
        // Calls over about 10 days, one every 5 minutes, some with an account, an article and a request id.
        yield* sql`
          insert into audit_log (at, account_id, origin, method, path, tool, article_id, status, duration_ms, request_id)
          select now() - g * interval '5 minutes', case when g % 3 = 0 then ${account!.id}::bigint end,
            case when g % 2 = 0 then 'API' else 'MCP' end, case when g % 2 = 0 then 'GET' end,
            case when g % 2 = 0 then '/api/v1/sites/' || g end, case when g % 2 = 1 then 'list_sites' end,
            case when g % 5 = 0 then g end, 200 + g % 3, g % 100, 'req-' || g
          from generate_series(1, ${CALLS}) g`
        const before = yield* fingerprint("audit_log")
        assert.strictEqual(before.n, CALLS)

        const result = yield* cbs("migrate")
        assert.isTrue(result.ok, result.stderr)
        assert.match(result.stdout, /^Applied 0011_audit_log_by_day$/m)
        assert.match(result.stdout, new RegExp(`^Moved ${CALLS} calls of the call log into day partitions\\.$`, "m"))

        assert.isTrue(yield* isPartitioned)
        assert.deepStrictEqual(yield* fingerprint("audit_log"), before)
        const [old] = yield* sql<{ present: boolean }>`
          select to_regclass('audit_log_unpartitioned') is not null as present`
        assert.isFalse(old!.present)
        const misplaced = yield* sql<{ n: number }>`
          select count(*)::int as n from audit_log
          where tableoid::regclass::text <> 'audit_log_' || to_char((at at time zone 'UTC')::date, 'YYYYMMDD')`
        assert.strictEqual(misplaced[0]!.n, 0)

        // New calls go on from the old ids.
        const [next] = yield* sql<{ id: number }>`
          insert into audit_log (at, origin, status, duration_ms) values (now(), 'API', 200, 1) returning id`
        const [max] = yield* sql<{ id: number }>`select max(id) as id from audit_log where request_id is not null`
        assert.isAbove(next!.id, max!.id)
      }).pipe(Effect.provide([NewDatabase, NodeContext.layer]), Effect.orDie),
    { timeout: 300_000 }
  )

  it.scoped(
    "on a new database, cbs migrate leaves a partitioned log that takes today's calls into today's partition",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const result = yield* cbs("migrate")
        assert.isTrue(result.ok, result.stderr)
        assert.isTrue(yield* isPartitioned)
        assert.notMatch(result.stdout, /Moved/)
        const [row] = yield* sql<{ part: string; today: string }>`
          insert into audit_log (at, origin, status, duration_ms) values (now(), 'API', 200, 1)
          returning tableoid::regclass::text as part,
            'audit_log_' || to_char((now() at time zone 'UTC')::date, 'YYYYMMDD') as today`
        assert.strictEqual(row!.part, row!.today)
        assert.strictEqual((yield* fingerprint("audit_log")).n, 1)
      }).pipe(Effect.provide([NewDatabase, NodeContext.layer]), Effect.orDie),
    { timeout: 300_000 }
  )
})
