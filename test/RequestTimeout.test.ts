// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Clock, Effect, Fiber, HashMap, Layer, Logger, Option, TestClock } from "effect"
import { waitUntil } from "./support/Eventually.js"
import { holdArticleRow } from "./support/RowLock.js"
import { articleOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

/** The server's error log lines: their message and request id. */
const errorLines: Array<{ readonly message: unknown; readonly requestId: unknown }> = []
const RecordErrors = Logger.add(
  Logger.make(({ logLevel, message, annotations }) => {
    if (logLevel._tag === "Error") {
      errorLines.push({ message, requestId: Option.getOrUndefined(HashMap.get(annotations, "request_id")) })
    }
  })
)

layer(TestServerLive.pipe(Layer.provide(RecordErrors)))("request timeout", (it) => {
  it.effect(
    "a request still running after REQUEST_TIMEOUT_SECONDS (30 s) is answered 503 unavailable with Retry-After and its request id, never 500",
    () =>
      Effect.gen(function* () {
        const { key, id: articleId } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        // Hold the article's row lock so that the edit cannot finish until the test lets go.
        const held = yield* holdArticleRow(articleId)
        const app = yield* TestApp
        const request = yield* app
          .fetch(`/api/v1/articles/${articleId}`, {
            method: "PATCH",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ title: "Changed" })
          })
          .pipe(Effect.fork)
        // Once the request is in flight, its deadline is the server's next timer: move the clock past it.
        const deadline = (yield* Clock.currentTimeMillis) + 30_000
        yield* waitUntil(
          "the request's deadline is set",
          Effect.map(
            TestClock.sleeps(),
            Chunk.some((at) => at >= deadline)
          )
        )
        yield* TestClock.adjust("31 seconds")
        const response = yield* Fiber.join(request)
        yield* held.release
        assert.strictEqual(response.status, 503)
        assert.strictEqual(response.headers.get("retry-after"), "1")
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
        const body = yield* Effect.promise(() => response.json())
        assert.strictEqual(body.error, "unavailable")
        const requestId = response.headers.get("x-request-id")
        assert.isString(requestId)
        assert.include(body.message, requestId!)
        // The details are in the server log, under the same request id.
        assert.isTrue(
          errorLines.some((line) => String(line.message).includes("Request failed") && line.requestId === requestId),
          JSON.stringify(errorLines)
        )
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ title: string }>`select title from articles where id = ${articleId}`
        assert.notStrictEqual(row!.title, "Changed")
      })
  )
})
