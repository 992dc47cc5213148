import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { getWithKey as get, siteOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

layer(TestServerLive)("paths", (it) => {
  describe("an article path names the article only when written exactly", () => {
    it.effect("the exact path reads the article", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const id = yield* app.makeArticle(siteId)
        const { status, body } = yield* get(`/api/v1/articles/${id}`, key)
        assert.strictEqual(status, 200)
        assert.strictEqual(body.data.id, id)
      })
    )

    for (const variant of [
      (id: number) => `/API/V1/articles/${id}`,
      (id: number) => `/api/v1/ARTICLES/${id}`,
      (id: number) => `/api/v1//articles/${id}`,
      (id: number) => `/api/v1/articles/${id};x`,
      (id: number) => `/api/v1/articles/${id};drop`,
      (id: number) => `/api/v1/articles/${id}%3Bx`,
      () => "/api/v1/articles/1e3",
      () => "/api/v1/articles/%D9%A1%D9%A3",
      () => "/api/v1/articles/0",
      () => "/api/v1/articles/-1"
    ]) {
      it.effect(`${variant(13)} is a 404 not_found, never another article or a 500`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const { key, siteId } = yield* siteOfNewAccount
          const id = yield* app.makeArticle(siteId)
          const { status, body } = yield* get(variant(id), key)
          assert.strictEqual(status, 404)
          assert.strictEqual(body.error, "not_found")
        })
      )
    }

    it.effect("a path with ; is answered like every other 404: with its X-Request-Id", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key } = yield* siteOfNewAccount
        for (const path of ["/api/v1/articles/2;x", "/api/v1/sites;x?page=1", "/nothing;x"]) {
          const res = yield* app.fetch(path, { headers: { "x-api-key": key } })
          assert.strictEqual(res.status, 404, path)
          assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/, path)
        }
      })
    )

    it.effect("a PATCH to a path in another case or with a doubled slash changes nothing", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const id = yield* app.makeArticle(siteId, { title: "Before" })
        for (const path of [`/api/v1/ARTICLES/${id}`, `/api/v1//articles/${id}`, `/api/v1/articles/${id};x`]) {
          const res = yield* app.fetch(path, {
            method: "PATCH",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ title: "After" })
          })
          assert.strictEqual(res.status, 404, path)
        }
        const { body } = yield* get(`/api/v1/articles/${id}`, key)
        assert.strictEqual(body.data.title, "Before")
      })
    )
  })
})
