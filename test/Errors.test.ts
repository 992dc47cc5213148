import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { FAILS_AT_COMMIT, refuseRevisionsAtCommit } from "./support/DatabaseFaults.js"
import { request } from "./support/Http.js"
import { serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"

/** GET with the given headers; the status, the headers and the raw text of the body. */
const get = (path: string, headers: Record<string, string> = {}) => request("GET", path, { headers })

/** A fresh account with one website and one article. */
const fixture = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId, key } = yield* app.makeAccount()
  const siteId = yield* app.makeSite(accountId)
  const articleId = yield* app.makeArticle(siteId)
  return { key, siteId, articleId, headers: { "x-api-key": key } }
})

/** Text that only shows up in a leaked stack trace or SQL error. */
const internals = [
  /\n\s+at /,
  /at [\w.<>]+ \(/,
  /node_modules/,
  /\.ts:\d+/,
  /\.js:\d+/,
  /\bselect\b.*\bfrom\b/i,
  /\bwhere\b.*=/i,
  /SqlError/,
  /syntax error/i,
  /PostgresError|pg_|relation "/i,
  /"stack"/,
  /"cause"/,
  /"_tag"/
]

layer(TestServerLive)("errors", (it) => {
  describe("unknown routes", () => {
    for (const path of ["/api/v1/nothing-here", "/api/v2/sites", "/api/nothing", "/api/v1/sites/1/comments"]) {
      it.effect(`GET ${path} is a JSON 404 not_found`, () =>
        Effect.gen(function* () {
          const { headers } = yield* fixture
          const result = yield* get(path, headers)
          assert.strictEqual(result.status, 404)
          assert.match(result.headers.get("content-type") ?? "", /^application\/json/)
          const body = JSON.parse(result.text)
          assert.strictEqual(body.error, "not_found")
          assert.isString(body.message)
        })
      )
    }

    it.effect("an unknown route without credentials is a JSON 404 not_found too", () =>
      Effect.gen(function* () {
        const result = yield* get("/api/v1/nothing-here")
        assert.strictEqual(result.status, 404)
        assert.strictEqual(JSON.parse(result.text).error, "not_found")
      })
    )
  })

  describe("X-Request-Id", () => {
    it.effect("every response carries X-Request-Id: 200, 401, 403, 404 and 422", () =>
      Effect.gen(function* () {
        const { headers, siteId } = yield* fixture
        const cases: ReadonlyArray<readonly [number, string, Record<string, string>]> = [
          [200, "/api/v1/sites", headers],
          [200, "/api/v1/openapi.json", {}],
          [200, `/api/v1/sites/${siteId}/stats`, headers],
          [401, "/api/v1/sites", {}],
          [401, "/api/v1/sites", { authorization: "Basic x" }],
          [403, "/api/v1/sites?website=x", headers],
          [404, "/api/v1/nothing-here", headers],
          [404, "/api/v1/sites/999999999/articles", headers],
          [404, "/api/v1/articles/abc", headers],
          [422, "/api/v1/sites?per_page=0", headers],
          [422, `/api/v1/sites/${siteId}/stats?period=nope`, headers]
        ]
        for (const [status, path, h] of cases) {
          const result = yield* get(path, h)
          assert.strictEqual(result.status, status, path)
          const id = result.headers.get("x-request-id")
          assert.isString(id, `${status} ${path} has no X-Request-Id`)
          assert.isAbove(id!.length, 0)
        }
      })
    )

    it.effect("every response carries X-Content-Type-Options: nosniff, and no HSTS when the address is http", () =>
      Effect.gen(function* () {
        const { headers, siteId } = yield* fixture
        for (const [path, h] of [
          ["/api/v1/sites", headers],
          [`/api/v1/sites/${siteId}/stats`, headers],
          ["/api/v1/openapi.json", {}],
          ["/api/v1/sites", {}],
          ["/api/v1/nothing-here", headers],
          ["/api/v1/sites?per_page=0", headers],
          ["/healthz", {}],
          ["/signin", {}],
          ["/sites", {}],
          ["/.well-known/oauth-authorization-server", {}]
        ] as const) {
          const result = yield* get(path, h)
          assert.strictEqual(result.headers.get("x-content-type-options"), "nosniff", path)
          assert.isNull(result.headers.get("strict-transport-security"), path)
        }
      })
    )

    it.effect("X-Request-Id differs from one request to the next", () =>
      Effect.gen(function* () {
        const { headers } = yield* fixture
        const ids = new Set<string | null>()
        for (let i = 0; i < 5; i++) ids.add((yield* get("/api/v1/sites", headers)).headers.get("x-request-id"))
        assert.strictEqual(ids.size, 5)
        assert.isFalse(ids.has(null))
      })
    )
  })

  describe("a failure after the request was read", () => {
    it.effect(
      "a change whose commit fails is a JSON 500 internal_error with its request id, saying the outcome is unknown; the retry with its key runs once",
      () =>
        Effect.gen(function* () {
          const { key, articleId } = yield* fixture
          const liftCheck = yield* refuseRevisionsAtCommit
          const send = () =>
            request("PATCH", `/api/v1/articles/${articleId}`, {
              key,
              json: { title: "Committed?", reason: FAILS_AT_COMMIT },
              headers: { "idempotency-key": "commit-1" }
            })
          const failed = yield* send()
          assert.strictEqual(failed.status, 500)
          assert.match(failed.headers.get("content-type") ?? "", /^application\/json/)
          const requestId = failed.headers.get("x-request-id")
          assert.isString(requestId)
          const body = JSON.parse(failed.text)
          assert.strictEqual(body.error, "internal_error")
          assert.include(body.message, "Idempotency-Key")
          assert.include(body.message, requestId!)
          for (const pattern of internals) assert.notMatch(failed.text, pattern)
          yield* liftCheck
          const retry = yield* send()
          assert.strictEqual(retry.status, 200)
          assert.isNull(retry.headers.get("idempotent-replayed"))
          const sql = yield* SqlClient.SqlClient
          const [count] = yield* sql<{ n: number }>`
            select count(*)::int as n from article_revisions where article_id = ${articleId}`.pipe(Effect.orDie)
          assert.strictEqual(count!.n, 1)
        })
    )
  })

  describe("error bodies", () => {
    it.effect("error bodies are { error, message } with no stack trace or SQL, whatever the input", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { headers, siteId } = yield* fixture
        const admin = yield* app.makeAccount({ admin: true })
        const adminHeaders = { "x-api-key": admin.key }
        const injection = encodeURIComponent("2026-01-01'; drop table sites; --")
        const cases: ReadonlyArray<readonly [string, Record<string, string>]> = [
          ["/api/v1/sites", {}],
          ["/api/v1/sites", { authorization: "Bearer cbs_' or 1=1 --" }],
          ["/api/v1/sites?account=x", headers],
          ["/api/v1/sites/999999999/backlinks", headers],
          ["/api/v1/articles/1%27%20or%201=1", headers],
          [`/api/v1/sites/${siteId}/articles?from=${injection}`, headers],
          [`/api/v1/sites/${siteId}/articles?status=${encodeURIComponent("published' or '1'='1")}`, headers],
          [`/api/v1/sites/${siteId}/backlinks?to=${injection}`, headers],
          [`/api/v1/sites/${siteId}/stats?period=${injection}`, headers],
          [`/api/v1/sites/${siteId}/stats?from=2026-10-01`, headers],
          ["/api/v1/sites?per_page=1e400", headers],
          ["/api/v1/sites?page=NaN", headers],
          [
            `/api/v1/sites?website=${encodeURIComponent("'\\%_")}&account=${encodeURIComponent("' or 1=1 --")}`,
            adminHeaders
          ],
          ["/api/v1/nothing-here", headers]
        ]
        for (const [path, h] of cases) {
          const result = yield* get(path, h)
          assert.isAtLeast(result.status, 200, path)
          for (const pattern of internals) assert.notMatch(result.text, pattern, `${path} leaks ${pattern}`)
          if (result.status >= 400) {
            assert.isBelow(result.status, 500, `${path} answered ${result.status}`)
            const body = JSON.parse(result.text)
            assert.isString(body.error, path)
            assert.isString(body.message, path)
            for (const field of Object.keys(body)) {
              assert.include(["error", "message", "protected_links", "limit"], field, `${path} has field ${field}`)
            }
          }
        }
      })
    )

    it.effect("a 422 message is truncated: a 5000-character per_page gives a message under 400 characters", () =>
      Effect.gen(function* () {
        const { headers } = yield* fixture
        const result = yield* get(`/api/v1/sites?per_page=${"9x".repeat(2500)}`, headers)
        assert.strictEqual(result.status, 422)
        const body = JSON.parse(result.text)
        assert.strictEqual(body.error, "validation_error")
        assert.isString(body.message)
        assert.isAbove(body.message.length, 0)
        assert.isBelow(body.message.length, 400)
      })
    )

    it.effect("a 422 message is truncated for a 5000-character status and date too", () =>
      Effect.gen(function* () {
        const { headers, siteId } = yield* fixture
        for (const query of [`status=${"s".repeat(5000)}`, `from=${"2".repeat(5000)}`, `period=${"p".repeat(5000)}`]) {
          const path = query.startsWith("period") ? `/api/v1/sites/${siteId}/stats` : `/api/v1/sites/${siteId}/articles`
          const result = yield* get(`${path}?${query}`, headers)
          assert.strictEqual(result.status, 422, query.slice(0, 10))
          const body = JSON.parse(result.text)
          assert.strictEqual(body.error, "validation_error")
          assert.isBelow(body.message.length, 400, query.slice(0, 10))
        }
      })
    )

    it.effect("a 422 for per_page over 100 carries limit 100; other 422s carry no limit", () =>
      Effect.gen(function* () {
        const { headers } = yield* fixture
        const over = JSON.parse((yield* get("/api/v1/sites?per_page=500", headers)).text)
        assert.deepStrictEqual(Object.keys(over).sort(), ["error", "limit", "message"])
        assert.strictEqual(over.limit, 100)
        const zero = JSON.parse((yield* get("/api/v1/sites?per_page=0", headers)).text)
        assert.deepStrictEqual(Object.keys(zero).sort(), ["error", "message"])
      })
    )
  })
})

/** The service again, on the same database, at a public address that is https (as behind a TLS proxy). */
class HttpsServer extends Context.Tag("test/HttpsServer")<HttpsServer, { readonly baseUrl: string }>() {}

const HttpsServerLive = Layer.scoped(
  HttpsServer,
  Effect.map(serverWithSettings({ PUBLIC_BASE_URL: "https://backlinks.example.com" }), (baseUrl) => ({ baseUrl }))
).pipe(Layer.provideMerge(TestServerLive))

layer(HttpsServerLive)("errors at an https address", (it) => {
  it.effect("every response carries Strict-Transport-Security when PUBLIC_BASE_URL is https", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* HttpsServer
      for (const path of ["/api/v1/sites", "/api/v1/openapi.json", "/api/v1/nothing-here", "/healthz", "/signin"]) {
        const res = yield* Effect.promise(() => fetch(`${baseUrl}${path}`))
        assert.match(res.headers.get("strict-transport-security") ?? "", /^max-age=\d{7,}/, path)
        assert.strictEqual(res.headers.get("x-content-type-options"), "nosniff", path)
        yield* Effect.promise(() => res.arrayBuffer())
      }
    })
  )
})
