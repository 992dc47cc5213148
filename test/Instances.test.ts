// @tags: engine
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { AccountId } from "../src/Domain/Ids.js"
import { HttpServerLive } from "../src/Server/Server.js"
import type { Database } from "../src/Sql/Database.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { setNow } from "./support/Clock.js"
import { eventually } from "./support/Eventually.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

/** A second instance of the service: its own server, services and port, on the first one's database. */
class SecondServer extends Context.Tag("test/SecondServer")<SecondServer, { readonly baseUrl: string }>() {}

const SecondServerLive = Layer.scoped(
  SecondServer,
  Effect.gen(function* () {
    const database = Layer.succeedContext(yield* Effect.context<Database>())
    // Layer.build memoises afresh, so none of the first instance's services (or in-process state) is reused.
    const context = yield* Layer.build(HttpServerLive({ port: 0, host: "127.0.0.1" }).pipe(Layer.provide(database)))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP server")
    return { baseUrl: `http://127.0.0.1:${address.port}` }
  })
)

const TwoServersLive = SecondServerLive.pipe(Layer.provideMerge(TestServerLive))

type Server = "A" | "B"

/** A request to instance A or B with an API key and an optional JSON body. */
const send = (server: Server, method: "GET" | "PATCH", path: string, key: string, json?: unknown) =>
  Effect.gen(function* () {
    const baseUrl = server === "A" ? (yield* TestApp).baseUrl : (yield* SecondServer).baseUrl
    const headers: Record<string, string> = { "x-api-key": key }
    if (json !== undefined) headers["content-type"] = "application/json"
    const res = yield* Effect.promise(() =>
      fetch(`${baseUrl}${path}`, { method, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) })
    )
    const body = yield* Effect.promise(() => res.json())
    return { status: res.status, headers: res.headers, body }
  })

const listSites = (server: Server, key: string) => send(server, "GET", "/api/v1/sites", key)
const patch = (server: Server, id: number, key: string, json: unknown) =>
  send(server, "PATCH", `/api/v1/articles/${id}`, key, json)

/** A fresh account with one website and `count` articles. */
const accountWithArticles = (count: number) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const { accountId, key } = yield* app.makeAccount()
    const siteId = yield* app.makeSite(accountId)
    const ids = yield* Effect.forEach(Array.from({ length: count }), () => app.makeArticle(siteId))
    return { accountId, key, ids }
  })

const useEdits = (accountId: AccountId, day: string, count: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`insert into edit_counters (account_id, day, count) values (${accountId}, ${day}::date, ${count})`.pipe(
      Effect.orDie
    )
  )

layer(TwoServersLive)("two instances on one database", (it) => {
  describe("setup", () => {
    it.effect("the second instance is a separate server on its own port that answers on its own", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const second = yield* SecondServer
        assert.notStrictEqual(second.baseUrl, app.baseUrl)
        const res = yield* Effect.promise(() => fetch(`${second.baseUrl}/healthz`))
        assert.strictEqual(res.status, 200)
      })
    )
  })

  describe("request limits", () => {
    it.effect("40 requests on instance A and 21 on instance B with the same key: the 61st overall is 429", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T10:00:30Z")
        const { key } = yield* accountWithArticles(0)
        const onA = yield* Effect.forEach(Array.from({ length: 40 }), () => listSites("A", key))
        for (const result of onA) assert.strictEqual(result.status, 200)
        const onB = yield* Effect.forEach(Array.from({ length: 21 }), () => listSites("B", key))
        assert.strictEqual(onB[0]!.headers.get("ratelimit-remaining"), "19")
        onB.slice(0, 20).forEach((result, index) => {
          assert.strictEqual(result.status, 200, `request ${41 + index}`)
        })
        const last = onB[20]!
        assert.strictEqual(last.status, 429, JSON.stringify(last.body))
        assert.strictEqual(last.body.error, "rate_limited")
        assert.strictEqual(last.body.limit, 60)
        // And instance A refuses the key too.
        assert.strictEqual((yield* listSites("A", key)).status, 429)
      })
    )

    it.effect("requests alternating between the instances share one allowance", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T11:00:30Z")
        const { key } = yield* accountWithArticles(0)
        const results = yield* Effect.forEach(
          Array.from({ length: 61 }, (_, i) => i),
          (i) => listSites(i % 2 === 0 ? "A" : "B", key)
        )
        results.slice(0, 60).forEach((result, index) => {
          assert.strictEqual(result.status, 200, `request ${index + 1}`)
          assert.strictEqual(result.headers.get("ratelimit-remaining"), String(59 - index))
        })
        assert.strictEqual(results[60]!.status, 429)
      })
    )
  })

  describe("edit limits", () => {
    it.effect(
      "edits split across both instances share the daily quota: at 198 used, one on each succeeds, a third on either is 429",
      () =>
        Effect.gen(function* () {
          yield* setNow("2026-11-21T12:00:00Z")
          const { accountId, key, ids } = yield* accountWithArticles(1)
          const id = ids[0]!
          yield* useEdits(accountId, "2026-11-21", 198)
          assert.strictEqual((yield* patch("A", id, key, { title: "On A" })).status, 200)
          assert.strictEqual((yield* patch("B", id, key, { title: "On B" })).status, 200)
          for (const server of ["A", "B"] as const) {
            const refused = yield* patch(server, id, key, { title: `Third on ${server}` })
            assert.strictEqual(refused.status, 429, JSON.stringify(refused.body))
            assert.strictEqual(refused.body.error, "edit_limit_exceeded")
            assert.strictEqual(refused.body.limit, 200)
          }
        })
    )

    it.effect("10 concurrent edits on each instance at 195 used: exactly 5 succeed in all", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T13:00:00Z")
        const { accountId, key, ids } = yield* accountWithArticles(20)
        yield* useEdits(accountId, "2026-11-21", 195)
        const results = yield* Effect.forEach(
          ids,
          (id, i) => patch(i % 2 === 0 ? "A" : "B", id, key, { title: `Edited ${id}` }),
          { concurrency: "unbounded" }
        )
        const statuses = results.map((result) => result.status)
        assert.strictEqual(statuses.filter((status) => status === 200).length, 5, JSON.stringify(statuses))
        assert.strictEqual(statuses.filter((status) => status === 429).length, 15, JSON.stringify(statuses))
      })
    )
  })

  describe("the call log", () => {
    it.effect("a call on each instance appears in the same audit_log", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T14:00:00Z")
        const sql = yield* SqlClient.SqlClient
        const { accountId, key } = yield* accountWithArticles(0)
        const onA = yield* listSites("A", key)
        // A's row is written before B is asked (reads' rows are written in batches, each instance its own).
        yield* readRowsWritten
        const onB = yield* listSites("B", key)
        const requestIds = [onA.headers.get("x-request-id"), onB.headers.get("x-request-id")]
        assert.notStrictEqual(requestIds[0], requestIds[1])
        const rows = yield* eventually(
          sql<{ request_id: string; status: number }>`
            select request_id, status from audit_log where account_id = ${accountId} order by id`.pipe(Effect.orDie),
          (rows) => rows.length >= 2
        )
        assert.deepStrictEqual(
          rows.map((row) => [row.request_id, row.status]),
          requestIds.map((id) => [id, 200])
        )
      })
    )
  })
})
