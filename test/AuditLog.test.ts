// @tags: engine
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Layer, Option, Scope, TestClock } from "effect"
import { AuditLog, ReadBatchClock } from "../src/Audit/AuditLog.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { type AccountId, ApiKeyId } from "../src/Domain/Ids.js"
import { HttpServerLive } from "../src/Server/Server.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { setNow } from "./support/Clock.js"
import { eventually } from "./support/Eventually.js"
import { request } from "./support/Http.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

type Method = "GET" | "PUT" | "PATCH" | "POST"

/** A request with an optional API key and JSON body; the status, the request id and the parsed JSON answer. */
const call = (method: Method, path: string, key?: string, json?: unknown) =>
  Effect.gen(function* () {
    const res = yield* request(method, path, { key, json })
    const requestId = res.headers.get("x-request-id")
    assert.isNotNull(requestId, `no X-Request-Id on ${method} ${path}`)
    return { method, path, status: res.status, body: res.body, requestId: requestId! }
  })

type Call = Effect.Effect.Success<ReturnType<typeof call>>

interface AuditRow {
  readonly at_ms: number
  readonly account_id: number | null
  readonly api_key_id: number | null
  readonly user_id: number | null
  readonly origin: string
  readonly method: string | null
  readonly path: string | null
  readonly article_id: number | null
  readonly status: number
  readonly duration_ms: number
  readonly request_id: string | null
}

const columns = (sql: SqlClient.SqlClient) =>
  sql`(extract(epoch from at) * 1000)::bigint as at_ms, account_id, api_key_id, user_id, origin, method, path,
    article_id, status, duration_ms, request_id`

/** The call log's entries with the given request id. */
const entriesOf = (requestId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<AuditRow>`select ${columns(sql)} from audit_log where request_id = ${requestId}`.pipe(
      Effect.orDie
    )
  })

/** The one entry of a call, once its batch is written; fails the test unless there is exactly one. */
const entryOf = (result: Call) =>
  Effect.gen(function* () {
    const rows = yield* eventually(entriesOf(result.requestId), (rows) => rows.length > 0)
    assert.strictEqual(rows.length, 1, `${rows.length} entries for ${result.method} ${result.path} (${result.status})`)
    return rows[0]!
  })

const entriesOfKey = (keyId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<AuditRow>`select ${columns(sql)} from audit_log where api_key_id = ${keyId}`.pipe(Effect.orDie)
  })

/** The id of the key's row, through the service (which records nothing). */
const keyIdOf = (key: string) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const credential = Option.getOrThrow(yield* keys.authenticate(key))
    assert.strictEqual(credential.kind, "api_key")
    return credential.id
  })

const NOW = "2026-11-21T12:00:00Z"

/** At NOW, a fresh account with a website holding one article; its key and the key's id. */
const accountWithArticle = Effect.gen(function* () {
  yield* setNow(NOW)
  const app = yield* TestApp
  const { accountId, key } = yield* app.makeAccount()
  const siteId = yield* app.makeSite(accountId)
  const articleId = yield* app.makeArticle(siteId)
  const keyId = yield* keyIdOf(key)
  return { accountId, key, keyId, siteId, articleId }
})

/** Checks the entry of an authenticated API call of `account`. */
const assertEntry = (
  entry: AuditRow,
  result: Call,
  account: { readonly accountId: number; readonly keyId: number },
  articleId: number | null
) => {
  const label = `${result.method} ${result.path}`
  assert.strictEqual(entry.account_id, account.accountId, label)
  assert.strictEqual(entry.api_key_id, account.keyId, label)
  assert.isNull(entry.user_id, label)
  assert.strictEqual(entry.origin, "API", label)
  assert.strictEqual(entry.method, result.method, label)
  assert.strictEqual(entry.path, result.path.split("?")[0], label)
  assert.strictEqual(entry.article_id, articleId, label)
  assert.strictEqual(entry.status, result.status, label)
  assert.isAtLeast(entry.duration_ms, 0, label)
  assert.strictEqual(entry.request_id, result.requestId, label)
}

/** Renames a table for the duration of `effect`, so that the code reading it fails as it would if it were lost. */
const withTableRenamed = <A, E, R>(table: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const away = `${table}_gone`
    return yield* Effect.acquireUseRelease(
      sql.unsafe(`alter table ${table} rename to ${away}`).pipe(Effect.orDie),
      () => effect,
      () => sql.unsafe(`alter table ${away} rename to ${table}`).pipe(Effect.orDie)
    )
  })

layer(TestServerLive)("the call log", (it) => {
  describe("authenticated API calls", () => {
    it.effect(
      "every authenticated call appears exactly once with account, key, origin API, method, path without query, article id, status, duration and request id",
      () =>
        Effect.gen(function* () {
          const account = yield* accountWithArticle
          const { key, siteId, articleId } = account
          const calls: Array<readonly [Call, number | null]> = [
            [yield* call("GET", "/api/v1/sites?page=1&per_page=5", key), null],
            [yield* call("GET", `/api/v1/sites/${siteId}/articles?per_page=10`, key), null],
            [yield* call("GET", `/api/v1/sites/${siteId}/backlinks`, key), null],
            [yield* call("GET", `/api/v1/sites/${siteId}/stats?period=this_month`, key), null],
            [yield* call("GET", `/api/v1/articles/${articleId}`, key), articleId],
            [yield* call("PATCH", `/api/v1/articles/${articleId}`, key, { title: "Logged" }), articleId],
            [yield* call("PUT", `/api/v1/articles/${articleId}`, key, { body: "<p>Logged body.</p>" }), articleId],
            [
              yield* call("POST", `/api/v1/articles/${articleId}/featured-image`, key, {
                url: "https://cdn.example.com/logged.png"
              }),
              articleId
            ]
          ]
          for (const [result, expectedArticle] of calls) {
            assert.strictEqual(result.status, 200, `${result.method} ${result.path}: ${JSON.stringify(result.body)}`)
            assertEntry(yield* entryOf(result), result, account, expectedArticle)
          }
          const all = yield* eventually(entriesOfKey(account.keyId), (rows) => rows.length >= calls.length)
          assert.strictEqual(all.length, calls.length)
          for (const entry of all) assert.strictEqual(entry.at_ms, Date.parse(NOW))
        })
    )

    it.effect("a 404 is recorded with its status, and with the article id of its path", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        const result = yield* call("GET", "/api/v1/articles/999999", account.key)
        assert.strictEqual(result.status, 404)
        assertEntry(yield* entryOf(result), result, account, 999999)
      })
    )

    it.effect("a 422 is recorded with its status and its path without the query string", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        const result = yield* call("GET", "/api/v1/sites?per_page=0", account.key)
        assert.strictEqual(result.status, 422)
        assertEntry(yield* entryOf(result), result, account, null)
      })
    )

    it.effect("a request-limit 429 is recorded with its status", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        yield* Effect.forEach(Array.from({ length: 60 }), () => call("GET", "/api/v1/sites", account.key))
        const result = yield* call("GET", "/api/v1/sites", account.key)
        assert.strictEqual(result.status, 429)
        assert.strictEqual(result.body.error, "rate_limited")
        assertEntry(yield* entryOf(result), result, account, null)
        assert.strictEqual((yield* eventually(entriesOfKey(account.keyId), (rows) => rows.length >= 61)).length, 61)
      })
    )

    it.effect("an edit-limit 429 is recorded with its status and article id", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const account = yield* accountWithArticle
        yield* sql`insert into edit_counters (account_id, day, count)
          values (${account.accountId}, ${NOW.slice(0, 10)}::date, 200)`.pipe(Effect.orDie)
        const result = yield* call("PATCH", `/api/v1/articles/${account.articleId}`, account.key, { title: "No" })
        assert.strictEqual(result.status, 429)
        assert.strictEqual(result.body.error, "edit_limit_exceeded")
        assertEntry(yield* entryOf(result), result, account, account.articleId)
      })
    )

    it.effect("a 500 is answered as internal_error with the request id and recorded with status 500", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        const result = yield* withTableRenamed(
          "backlinks",
          call("GET", `/api/v1/sites/${account.siteId}/backlinks`, account.key)
        )
        assert.strictEqual(result.status, 500, JSON.stringify(result.body))
        assert.strictEqual(result.body.error, "internal_error")
        assert.include(result.body.message, result.requestId)
        assert.notMatch(result.body.message, /backlinks|relation|select/i)
        assertEntry(yield* entryOf(result), result, account, null)
        // The table is back and the endpoint answers again.
        assert.strictEqual((yield* call("GET", `/api/v1/sites/${account.siteId}/backlinks`, account.key)).status, 200)
      })
    )
  })

  describe("unauthenticated calls", () => {
    it.effect("a 401 with an unknown, malformed or missing key is not attributed to any account or key", () =>
      Effect.gen(function* () {
        yield* setNow(NOW)
        const app = yield* TestApp
        const unknown = yield* call("GET", "/api/v1/sites", "cbs_unknown-key")
        const malformed = yield* Effect.promise(() =>
          fetch(`${app.baseUrl}/api/v1/sites`, { headers: { authorization: "Basic abc" } })
        )
        const missing = yield* call("GET", "/api/v1/sites")
        assert.strictEqual(unknown.status, 401)
        assert.strictEqual(malformed.status, 401)
        assert.strictEqual(missing.status, 401)
        const requestIds = [unknown.requestId, malformed.headers.get("x-request-id")!, missing.requestId]
        yield* readRowsWritten
        for (const requestId of requestIds) {
          for (const entry of yield* entriesOf(requestId)) {
            assert.isNull(entry.account_id)
            assert.isNull(entry.api_key_id)
            assert.isNull(entry.user_id)
          }
        }
      })
    )

    it.effect("a 401 with a revoked key is not attributed to the key or its account", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const keys = yield* ApiKeys
        const account = yield* accountWithArticle
        yield* keys.revoke(ApiKeyId.make(account.keyId)).pipe(Effect.orDie)
        const result = yield* call("GET", `/api/v1/articles/${account.articleId}`, account.key)
        assert.strictEqual(result.status, 401)
        yield* readRowsWritten
        const attributed = yield* sql<{ n: number }>`select count(*)::int as n from audit_log
          where account_id = ${account.accountId} or api_key_id = ${account.keyId}`.pipe(Effect.orDie)
        assert.strictEqual(attributed[0]!.n, 0)
      })
    )
  })

  describe("retention and failures", () => {
    it.effect(
      "AuditLog.maintain deletes the days before the 90 days kept at the clock's now and keeps the days within them",
      () =>
        Effect.gen(function* () {
          // A "now" far from the wall clock, so that pruning relative to the real time would show.
          const now = Date.parse("2021-06-01T00:00:00Z")
          yield* TestClock.setTime(now)
          const sql = yield* SqlClient.SqlClient
          const app = yield* TestApp
          const { accountId } = yield* app.makeAccount()
          const day = 86_400_000
          const ages = {
            old: 200 * day,
            justOver: 90 * day + 1000,
            justUnder: 90 * day - 1000,
            recent: day
          }
          const insert = (accountId: AccountId, age: number) =>
            sql<{ id: number }>`insert into audit_log ${sql.insert({
              at: new Date(now - age).toISOString(),
              account_id: accountId,
              origin: "API",
              method: "GET",
              path: "/api/v1/sites",
              status: 200,
              duration_ms: 1
            })} returning id`.pipe(
              Effect.map((rows) => rows[0]!.id),
              Effect.orDie
            )
          const ids = {
            old: yield* insert(accountId, ages.old),
            justOver: yield* insert(accountId, ages.justOver),
            justUnder: yield* insert(accountId, ages.justUnder),
            recent: yield* insert(accountId, ages.recent)
          }
          const done = yield* Effect.flatMap(AuditLog, (audit) => audit.maintain)
          // Now is midnight: the day kept first is 2021-03-03, so "just over" (23:59:59 the day before) goes.
          assert.strictEqual(done.firstKept, "2021-03-03")
          assert.isAtLeast(done.deleted, 2)
          const left = yield* sql<{
            id: number
          }>`select id from audit_log where account_id = ${accountId} order by id`.pipe(Effect.orDie)
          assert.deepStrictEqual(
            left.map((row) => row.id),
            [ids.justUnder, ids.recent]
          )
        })
    )

    it.effect(
      "a change whose call-log row cannot be written is not saved: the PATCH is a 500 and nothing changed",
      () =>
        Effect.gen(function* () {
          const account = yield* accountWithArticle
          const path = `/api/v1/articles/${account.articleId}`
          const before = yield* call("GET", path, account.key)
          const result = yield* withTableRenamed(
            "audit_log",
            call("PATCH", path, account.key, { title: "Never saved without its log row" })
          )
          assert.strictEqual(result.status, 500, JSON.stringify(result.body))
          assert.strictEqual(result.body.error, "internal_error")
          const read = yield* call("GET", path, account.key)
          assert.strictEqual(read.body.data.title, before.body.data.title)
          const sql = yield* SqlClient.SqlClient
          const revisions = yield* sql<{ n: number }>`
          select count(*)::int as n from article_revisions where article_id = ${account.articleId}`.pipe(Effect.orDie)
          assert.strictEqual(revisions[0]!.n, 0)
        })
    )

    it.effect("a saved change's call-log row is written in the change's transaction, before the response", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        const path = `/api/v1/articles/${account.articleId}`
        const result = yield* call("PATCH", path, account.key, { title: "Logged with its change" })
        assert.strictEqual(result.status, 200)
        const rows = yield* entriesOf(result.requestId)
        assert.lengthOf(rows, 1)
        assert.strictEqual(rows[0]!.status, 200)
        assert.strictEqual(rows[0]!.article_id, account.articleId)
      })
    )

    it.effect("a failing audit write does not fail a read: the GET answers 200", () =>
      Effect.gen(function* () {
        const account = yield* accountWithArticle
        const path = `/api/v1/articles/${account.articleId}`
        // The table is back only once the read's batch has been written (or has failed to be).
        const result = yield* withTableRenamed(
          "audit_log",
          Effect.zipLeft(call("GET", path, account.key), readRowsWritten)
        )
        assert.strictEqual(result.status, 200, JSON.stringify(result.body))
        assert.lengthOf(yield* entriesOf(result.requestId), 0)
        const read = yield* call("GET", path, account.key)
        // Recording works again once the table is back.
        assert.lengthOf(yield* eventually(entriesOf(read.requestId), (rows) => rows.length > 0), 1)
      })
    )
  })
})

/** The server with its read batches timed by the test clock, which moves only when a test moves it. */
const BatchesOnTestClock = Layer.effect(ReadBatchClock, Effect.clock)

/** The times the test clock's sleepers wake at, up to `until`. */
const wakingBy = (until: number) =>
  Effect.map(TestClock.sleeps(), (sleeps) => Chunk.toReadonlyArray(sleeps).filter((at) => at <= until))

layer(TestServerLive.pipe(Layer.provideMerge(BatchesOnTestClock)))("the call log's read batches", (it) => {
  it.effect("a read call's row is written within 250 ms of its answer, and several reads share one batch", () =>
    Effect.gen(function* () {
      const account = yield* accountWithArticle
      const reads = yield* Effect.all(
        Array.from({ length: 5 }, () => call("GET", `/api/v1/articles/${account.articleId}`, account.key)),
        { concurrency: "unbounded" }
      )
      // One timer for the five, due within the 250 ms the contract allows; until it fires, no row.
      const answered = Date.parse(NOW)
      const timers = yield* eventually(wakingBy(answered + 250), (due) => due.length > 0)
      assert.lengthOf(timers, 1, `timers due: ${timers.join(", ")}`)
      assert.lengthOf(yield* entriesOfKey(account.keyId), 0)
      yield* TestClock.adjust("250 millis")
      const rows = yield* eventually(entriesOfKey(account.keyId), (rows) => rows.length >= reads.length)
      assert.sameMembers(
        rows.map((row) => row.request_id),
        reads.map((read) => read.requestId)
      )
      for (const read of reads) assertEntry(yield* entryOf(read), read, account, account.articleId)
    })
  )

  it.effect("read rows still waiting for their batch when the server stops are written before it has stopped", () =>
    Effect.gen(function* () {
      const account = yield* accountWithArticle
      // A second server on the same database, stopped right after answering, while its batch timer still waits.
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(HttpServerLive({ port: 0, host: "127.0.0.1" }), scope)
      const address = Context.get(context, HttpServer.HttpServer).address
      assert.strictEqual(address._tag, "TcpAddress")
      const port = address._tag === "TcpAddress" ? address.port : 0
      const statuses = yield* Effect.forEach(Array.from({ length: 3 }), () =>
        Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/api/v1/sites/${account.siteId}/articles`, {
            headers: { "x-api-key": account.key }
          }).then((res) => res.status)
        )
      )
      assert.deepStrictEqual(statuses, [200, 200, 200])
      assert.lengthOf(yield* entriesOfKey(account.keyId), 0)
      yield* Scope.close(scope, Exit.void)
      // No waiting here: the rows were written while the server stopped.
      assert.lengthOf(yield* entriesOfKey(account.keyId), 3)
    })
  )
})
