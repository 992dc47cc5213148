// @tags: engine
import { request as rawRequest } from "node:http"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { assertError, storedBody } from "./support/ArticleWrites.js"
import { patchArticle, putArticle, request } from "./support/Http.js"
import { articleOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

/**
 * PUT of a JSON body of about `size` bytes sent with `Transfer-Encoding: chunked` (no Content-Length), so that the
 * server learns its size only while reading. Answers the status and body, or status -1 with the socket error.
 */
const chunkedPut = (
  baseUrl: string,
  path: string,
  key: string,
  size: number,
  options: { readonly method?: string; readonly contentType?: string } = {}
) =>
  Effect.async<{ readonly status: number; readonly body: Record<string, unknown> }>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    const headers = { "x-api-key": key, "content-type": options.contentType ?? "application/json" }
    const req = rawRequest({ hostname, port, path, method: options.method ?? "PUT", headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        resume(Effect.succeed({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      })
    })
    req.on("error", (error) => resume(Effect.succeed({ status: -1, body: { error: String(error) } })))
    const chunk = "x".repeat(Math.min(64 * 1024, size))
    let written = 0
    const write = () => {
      while (written < size) {
        written += chunk.length
        if (!req.write(chunk)) {
          req.once("drain", write)
          return
        }
      }
      req.end('</p>"}')
    }
    req.write('{"body":"<p>')
    write()
  })

layer(TestServerLive)("article writes", (it) => {
  describe("tenancy and authentication", () => {
    it.effect("PUT and PATCH on another account's article are 404 not_found and change nothing", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { id } = yield* articleOfNewAccount({ body: "<p>Theirs.</p>" })
        const { key: otherKey } = yield* app.makeAccount()
        assertError(yield* putArticle(id, otherKey, { body: "<p>Mine.</p>" }), 404, "not_found")
        assertError(
          yield* patchArticle(id, otherKey, { replacements: [{ find: "Theirs", replace: "Mine" }] }),
          404,
          "not_found"
        )
        assert.strictEqual(yield* storedBody(id), "<p>Theirs.</p>")
      })
    )

    it.effect("an admin key writing another account's article gets 404 not_found too", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { id } = yield* articleOfNewAccount({ body: "<p>Theirs.</p>" })
        const { key: adminKey } = yield* app.makeAccount({ admin: true })
        // The admin key can read it…
        assert.strictEqual((yield* request("GET", `/api/v1/articles/${id}`, { key: adminKey })).status, 200)
        // …but not write it.
        assertError(yield* putArticle(id, adminKey, { body: "<p>Admin.</p>" }), 404, "not_found")
        assertError(yield* patchArticle(id, adminKey, { title: "Admin" }), 404, "not_found")
        assert.strictEqual(yield* storedBody(id), "<p>Theirs.</p>")
      })
    )

    for (const badId of ["abc", "0", "-1", "1.5"]) {
      it.effect(`PUT and PATCH on article id ${badId} are 404 not_found`, () =>
        Effect.gen(function* () {
          const { key } = yield* articleOfNewAccount()
          const path = `/api/v1/articles/${badId}`
          assertError(yield* request("PUT", path, { key, json: { body: "<p>x</p>" } }), 404, "not_found")
          assertError(yield* request("PATCH", path, { key, json: { title: "x" } }), 404, "not_found")
        })
      )
    }

    it.effect("PUT and PATCH without a key are 401 unauthorized", () =>
      Effect.gen(function* () {
        const { id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const path = `/api/v1/articles/${id}`
        assertError(yield* request("PUT", path, { json: { body: "<p>x</p>" } }), 401, "unauthorized")
        assertError(yield* request("PATCH", path, { json: { title: "x" } }), 401, "unauthorized")
        assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
      })
    )
  })

  describe("request size", () => {
    it.effect("a JSON body over 5 MiB is answered with 413 payload_too_large and a limit", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const json = JSON.stringify({ body: `<p>${"x".repeat(5 * 1024 * 1024)}</p>` })
        const res = yield* Effect.tryPromise(() =>
          fetch(`${app.baseUrl}/api/v1/articles/${id}`, {
            method: "PUT",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: json
          }).then(async (r) => ({ status: r.status, body: await r.json() }))
        ).pipe(Effect.catchAll((error) => Effect.succeed({ status: -1, body: { error: String(error.cause) } })))
        assertError(res, 413, "payload_too_large")
        assert.isNumber(res.body.limit)
        assert.isAtMost(res.body.limit, 5 * 1024 * 1024)
        assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
      })
    )
  })

  describe("request size (streamed)", () => {
    // Without a Content-Length the cap can only be applied while reading: the server stops keeping the body at the
    // cap and answers 413, reading (and dropping) what the client still sends so that the answer reaches it.
    for (const size of [5 * 1024 * 1024 + 1024, 20 * 1024 * 1024]) {
      it.effect(
        `a JSON body of ${size} bytes sent chunked, without Content-Length, is 413 payload_too_large and nothing is saved`,
        () =>
          Effect.gen(function* () {
            const app = yield* TestApp
            const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
            const res = yield* chunkedPut(app.baseUrl, `/api/v1/articles/${id}`, key, size)
            assert.strictEqual(res.status, 413, JSON.stringify(res.body))
            assert.strictEqual(res.body["error"], "payload_too_large")
            assert.strictEqual(res.body["limit"], 5 * 1024 * 1024)
            assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
          })
      )
    }

    // The cap is applied as the request comes in from the network, whatever route it is for.
    for (const [method, path, contentType, cap] of [
      ["POST", "/signin", "application/x-www-form-urlencoded", 5 * 1024 * 1024],
      ["POST", "/mcp", "application/json", 16 * 1024 * 1024]
    ] as const) {
      it.effect(`a body over its cap sent chunked to ${method} ${path} (not an API route) is 413 too`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const { key } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
          const res = yield* chunkedPut(app.baseUrl, path, key, cap + 1024, { method, contentType })
          assert.strictEqual(res.status, 413, JSON.stringify(res.body))
          assert.strictEqual(res.body["error"], "payload_too_large")
          assert.strictEqual(res.body["limit"], cap)
        })
      )
    }

    it.effect("a JSON body within the cap sent chunked is read as any other", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const res = yield* chunkedPut(app.baseUrl, `/api/v1/articles/${id}`, key, 2000)
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(yield* storedBody(id), `<p>${"x".repeat(2000)}</p>`)
      })
    )
  })
})
