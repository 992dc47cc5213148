// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Redacted } from "effect"
import pg from "pg"
import { layerPostgres } from "../src/Database.js"

const url = process.env["DATABASE_URL"] ?? ""
const onPostgres = url !== ""

describe("an interrupted query", () => {
  // The embedded database has a pool of one connection on one shared session: there is no other connection for a
  // cancel to come from, nor another statement for it to land on.
  it.live.skipIf(!onPostgres)(
    "never cancels the next statement on its connection (PostgreSQL only; skipped on the embedded database)",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // Both connections open before the timeline starts.
        yield* Effect.all([sql`select 1`, sql`select 1`], { concurrency: 2 })
        // A holds one connection until 0.3 s and B the other until 0.45 s; C waits for a connection, and gets A's.
        const b = yield* Effect.fork(sql`select pg_sleep(0.45)`)
        const a = yield* Effect.fork(sql`select pg_sleep(0.3)`)
        yield* Effect.sleep("50 millis")
        const c = yield* Effect.fork(sql<{ ok: number }>`select pg_sleep(0.5), 1 as ok`)
        yield* Effect.sleep("50 millis")
        // A's client goes away at 0.1 s: its cancel waits for a connection, which B frees only while C runs on A's.
        yield* Fiber.interruptFork(a)
        const answered = yield* Fiber.join(c).pipe(Effect.either)
        yield* Fiber.join(b)
        assert.strictEqual(answered._tag, "Right", answered._tag === "Left" ? String(answered.left.cause) : "")
        if (answered._tag === "Right") assert.strictEqual(answered.right[0]?.ok, 1)
        // The pool still answers, on as many connections as before.
        const after = yield* Effect.all([sql`select 1 as one`, sql`select 1 as one`], { concurrency: 2 })
        assert.strictEqual(after.length, 2)
      }).pipe(Effect.provide(layerPostgres(Redacted.make(url), 2))),
    20_000
  )

  it.live.skipIf(!onPostgres)(
    "an idle pooled connection ended by PostgreSQL is dropped from the pool; the process goes on (PostgreSQL only)",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uncaught: Array<unknown> = []
        const record = (error: unknown) => uncaught.push(error)
        process.on("uncaughtException", record)
        yield* Effect.addFinalizer(() => Effect.sync(() => process.off("uncaughtException", record)))
        // Both connections of the pool open, each telling its server process id.
        const pids = yield* Effect.all(
          [
            sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.1)`,
            sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.1)`
          ],
          { concurrency: 2 }
        ).pipe(Effect.map((rows) => rows.map((row) => row[0]!.pid)))
        assert.strictEqual(new Set(pids).size, 2)
        // Both are idle in the pool now; another connection ends them, as a restart of PostgreSQL would.
        yield* Effect.promise(async () => {
          const admin = new pg.Client({ connectionString: url })
          await admin.connect()
          await admin.query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid", [pids])
          await admin.end()
        })
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(uncaught, [])
        const [row] = yield* sql<{ one: number }>`select 1 as one`
        assert.strictEqual(row?.one, 1)
      }).pipe(Effect.scoped, Effect.provide(layerPostgres(Redacted.make(url), 2))),
    20_000
  )
})
