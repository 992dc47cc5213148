// @tags: engine runtime
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApp, TestServerLive } from "./support/TestServer.js"

layer(TestServerLive)("smoke", (it) => {
  it.effect("GET /api/v1/sites with a valid key answers 200", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const { accountId, key } = yield* app.makeAccount()
      yield* app.makeSite(accountId)
      const res = yield* app.fetch("/api/v1/sites", { headers: { "x-api-key": key } })
      assert.strictEqual(res.status, 200)
      const body = yield* Effect.promise(() => res.json())
      assert.strictEqual(body.meta.total, 1)
    })
  )
})
void describe
void it
