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

  it.effect("every endpoint writes its JSON the same way: no spaces between tokens", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const { accountId, key } = yield* app.makeAccount()
      const site = yield* app.makeSite(accountId)
      const article = yield* app.makeArticle(site, { title: "Spaced : out, really", body: "<p>a : b, c</p>" })
      yield* app.makeArticle(site, { title: "Second" })
      for (const path of [
        "/api/v1/sites",
        `/api/v1/sites/${site}/articles`,
        `/api/v1/articles/${article}`,
        `/api/v1/sites/${site}/backlinks`,
        `/api/v1/sites/${site}/stats`,
        "/api/v1/nothing"
      ]) {
        const res = yield* app.fetch(path, { headers: { "x-api-key": key } })
        const text = yield* Effect.promise(() => res.text())
        assert.strictEqual(text, JSON.stringify(JSON.parse(text)), path)
      }
    })
  )
})
void describe
void it
