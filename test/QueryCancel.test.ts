// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Redacted, type Scope } from "effect"
import pg from "pg"
import { acquirePgPool } from "../src/Sql/PgPool.js"
import { eventually, waitUntil } from "./support/Eventually.js"

const url = process.env["DATABASE_URL"] ?? ""
const onPostgres = url !== ""

/**
 * The service's pool of two connections, and the pool itself for the test to look into. A second connection of the
 * test's own (not in the pool) holds the advisory locks the pool's statements wait for.
 */
const withPool = <A, E>(
  test: (pool: pg.Pool, admin: pg.Client, sql: SqlClient.SqlClient) => Effect.Effect<A, E, Scope.Scope>
) =>
  Effect.gen(function* () {
    const pool = yield* acquirePgPool(Redacted.make(url), 2, pg.types)
    const admin = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        return client
      }),
      (client) => Effect.promise(() => client.end())
    )
    const client = PgClient.layerFromPool({ acquire: Effect.succeed(pool) })
    return yield* Effect.flatMap(SqlClient.SqlClient, (sql) => test(pool, admin, sql)).pipe(Effect.provide(client))
  }).pipe(Effect.scoped)

/** Advisory lock keys of this file's own, so that no other test's locks are taken for them. */
const KEY = { a: 731_001, b: 731_002, c: 731_003 } as const

/** Whether any session holds (`granted`) or waits for the advisory lock `key` in this database. */
const advisoryLock = (admin: pg.Client, key: number, granted: boolean) =>
  Effect.promise(() =>
    admin.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
        where locktype = 'advisory' and granted = $2 and objid = $1
          and database = (select oid from pg_database where datname = current_database())`,
      [key, granted]
    )
  ).pipe(Effect.map((result) => result.rows[0]!.n > 0))

/** Whether a statement of the pool waits for the advisory lock `key` (held by the test's own connection). */
const waitsFor = (admin: pg.Client, key: number) => advisoryLock(admin, key, false)

const lock = (admin: pg.Client, key: number) => Effect.promise(() => admin.query("select pg_advisory_lock($1)", [key]))
const unlock = (admin: pg.Client, key: number) =>
  Effect.promise(() => admin.query("select pg_advisory_unlock($1)", [key]))

/** Whether any session holds the advisory lock `key`. */
const held = (admin: pg.Client, key: number) => advisoryLock(admin, key, true)

/** A test of the service's pool (`withPool`), run on PostgreSQL only. */
const postgresOnly = <A, E>(
  name: string,
  test: (pool: pg.Pool, admin: pg.Client, sql: SqlClient.SqlClient) => Effect.Effect<A, E, Scope.Scope>
) => it.live.skipIf(!onPostgres)(name, () => withPool(test))

describe("an interrupted query", () => {
  postgresOnly(
    "ends its transaction even when the cancel arrives before its statement starts (PostgreSQL only)",
    (pool, admin) =>
      Effect.gen(function* () {
        // A request's transaction has taken a lock of its own (as a keyed write takes its key).
        const client = yield* Effect.promise(() => pool.connect())
        client.on("error", () => {})
        yield* Effect.addFinalizer(() => Effect.sync(() => client.release(new Error("done"))))
        const processId = (client as pg.PoolClient & { readonly processID: number }).processID
        yield* Effect.promise(() => client.query("begin"))
        yield* Effect.promise(() => client.query("select pg_advisory_xact_lock($1)", [KEY.c]))
        // Its client goes away: @effect/sql-pg asks for the cancel of its statement, which has not reached the
        // server yet; the statement then waits for a lock the test holds.
        yield* Effect.promise(() => pool.query(`SELECT pg_cancel_backend(${processId})`))
        yield* lock(admin, KEY.b)
        const waiting = client.query("select pg_advisory_xact_lock($1)", [KEY.b]).catch(() => "ended")
        // The transaction ends all the same, and its lock with it, while the test still holds the other one.
        assert.isFalse(
          yield* eventually(held(admin, KEY.c), (isHeld) => !isHeld),
          "the interrupted transaction still holds its lock"
        )
        assert.strictEqual(yield* Effect.promise(() => waiting), "ended")
        yield* unlock(admin, KEY.b)
      })
  )

  // The embedded database has a pool of one connection on one shared session: there is no other connection for a
  // cancel to come from, nor another statement for it to land on.
  postgresOnly(
    "never cancels the next statement on its connection (PostgreSQL only; skipped on the embedded database)",
    (pool, admin, sql) =>
      Effect.gen(function* () {
        // A and B each hold one of the two connections, each waiting for a lock the test holds.
        for (const key of Object.values(KEY)) yield* lock(admin, key)
        const b = yield* Effect.fork(sql`select pg_advisory_xact_lock(${KEY.b})`)
        const a = yield* Effect.fork(sql`select pg_advisory_xact_lock(${KEY.a})`)
        yield* waitUntil(
          "A and B wait for their locks",
          Effect.zipWith(waitsFor(admin, KEY.a), waitsFor(admin, KEY.b), (x, y) => x && y)
        )
        // C waits for a connection, and A's cancel (A's client went away) waits behind it.
        const c = yield* Effect.fork(sql<{ ok: number }>`select pg_advisory_xact_lock(${KEY.c}), 1 as ok`)
        yield* waitUntil(
          "C waits for a connection",
          Effect.sync(() => pool.waitingCount === 1)
        )
        yield* Fiber.interruptFork(a)
        yield* waitUntil(
          "the cancel waits for a connection",
          Effect.sync(() => pool.waitingCount === 2)
        )
        // A's statement ends: C gets a connection (A's, were it pooled again) and waits there for its lock.
        yield* unlock(admin, KEY.a)
        yield* waitUntil("C waits for its lock", waitsFor(admin, KEY.c))
        // B's statement ends: the cancel runs on B's connection, while C still waits. A's fiber ends with it.
        yield* unlock(admin, KEY.b)
        yield* Fiber.join(b)
        yield* Fiber.await(a)
        yield* unlock(admin, KEY.c)
        const answered = yield* Fiber.join(c).pipe(Effect.either)
        assert.strictEqual(answered._tag, "Right", answered._tag === "Left" ? String(answered.left.cause) : "")
        if (answered._tag === "Right") assert.strictEqual(answered.right[0]?.ok, 1)
        // The pool still answers, on as many connections as before.
        const after = yield* Effect.all([sql`select 1 as one`, sql`select 1 as one`], { concurrency: 2 })
        assert.strictEqual(after.length, 2)
      })
  )

  postgresOnly(
    "an idle pooled connection ended by PostgreSQL is dropped from the pool; the process goes on (PostgreSQL only)",
    (pool, admin, sql) =>
      Effect.gen(function* () {
        const uncaught: Array<unknown> = []
        const record = (error: unknown) => uncaught.push(error)
        process.on("uncaughtException", record)
        yield* Effect.addFinalizer(() => Effect.sync(() => process.off("uncaughtException", record)))
        // Both connections of the pool open (each statement waits for a lock until both are in), each telling its
        // server process id.
        yield* lock(admin, KEY.a)
        const both = yield* Effect.fork(
          Effect.all(
            [
              sql<{ pid: number }>`select pg_backend_pid() as pid, pg_advisory_xact_lock_shared(${KEY.a})`,
              sql<{ pid: number }>`select pg_backend_pid() as pid, pg_advisory_xact_lock_shared(${KEY.a})`
            ],
            { concurrency: 2 }
          )
        )
        yield* waitUntil(
          "both connections are open",
          Effect.sync(() => pool.totalCount === 2)
        )
        yield* unlock(admin, KEY.a)
        const pids = (yield* Fiber.join(both)).map((rows) => rows[0]!.pid)
        assert.strictEqual(new Set(pids).size, 2)
        yield* waitUntil(
          "both connections are idle in the pool",
          Effect.sync(() => pool.idleCount === 2)
        )
        // Another connection ends them, as a restart of PostgreSQL would.
        yield* Effect.promise(() =>
          admin.query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid", [pids])
        )
        // The pool hears of each end as an error of an idle client, and drops it.
        assert.strictEqual(
          yield* eventually(
            Effect.sync(() => pool.totalCount),
            (n) => n === 0
          ),
          0
        )
        assert.deepStrictEqual(uncaught, [])
        const [row] = yield* sql<{ one: number }>`select 1 as one`
        assert.strictEqual(row?.one, 1)
      })
  )
})
