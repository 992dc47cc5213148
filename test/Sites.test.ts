import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { getWithKey as get, TestApp, TestServerLive } from "./support/TestServer.js"

/** An account with `count` websites, in creation (id) order. */
const accountWithSites = (count: number) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const account = yield* app.makeAccount()
    const siteIds: Array<SiteId> = []
    for (let i = 0; i < count; i++) siteIds.push(yield* app.makeSite(account.accountId))
    return { ...account, siteIds }
  })

const assertValidationError = (result: { readonly status: number; readonly body: { readonly error?: unknown } }) => {
  assert.strictEqual(result.status, 422)
  assert.strictEqual(result.body.error, "validation_error")
}

layer(TestServerLive)("GET /api/v1/sites", (it) => {
  describe("contents", () => {
    it.effect("lists only the key's own websites, in id order", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const other = yield* app.makeAccount()
        yield* app.makeSite(other.accountId)
        const own = yield* accountWithSites(3)
        yield* app.makeSite(other.accountId)
        const { status, body } = yield* get("/api/v1/sites", own.key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(
          body.data.map((site: { id: number }) => site.id),
          own.siteIds
        )
        assert.strictEqual(body.meta.total, 3)
      })
    )

    it.effect("returns every Site field, null when unset", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const full = yield* app.makeSite(accountId, {
          name: "Example Plumbing",
          website_url: "https://plumbing.example.com",
          language: "en-GB",
          country: "GB",
          geographic_scope: "national",
          industry: "Plumbing"
        })
        const bare = yield* app.makeSite(accountId, {
          name: null,
          website_url: null,
          language: null,
          country: null,
          geographic_scope: null,
          industry: null
        })
        const { body } = yield* get("/api/v1/sites", key)
        assert.deepStrictEqual(body.data, [
          {
            id: full,
            name: "Example Plumbing",
            website_url: "https://plumbing.example.com",
            language: "en-GB",
            country: "GB",
            geographic_scope: "national",
            industry: "Plumbing"
          },
          {
            id: bare,
            name: null,
            website_url: null,
            language: null,
            country: null,
            geographic_scope: null,
            industry: null
          }
        ])
      })
    )
  })

  describe("pagination", () => {
    it.effect("defaults to per_page 20: 21 websites are 20 on page 1 and 1 on page 2", () =>
      Effect.gen(function* () {
        const { key, siteIds } = yield* accountWithSites(21)
        const first = yield* get("/api/v1/sites", key)
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual(first.body.meta, { page: 1, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(
          first.body.data.map((site: { id: number }) => site.id),
          siteIds.slice(0, 20)
        )
        const second = yield* get("/api/v1/sites?page=2", key)
        assert.deepStrictEqual(second.body.meta, { page: 2, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(
          second.body.data.map((site: { id: number }) => site.id),
          siteIds.slice(20)
        )
      })
    )

    it.effect("last_page is ceil(total / per_page): 5 websites at per_page 2 give 3 pages, the last holding 1", () =>
      Effect.gen(function* () {
        const { key, siteIds } = yield* accountWithSites(5)
        const last = yield* get("/api/v1/sites?per_page=2&page=3", key)
        assert.strictEqual(last.status, 200)
        assert.deepStrictEqual(last.body.meta, { page: 3, per_page: 2, total: 5, last_page: 3 })
        assert.deepStrictEqual(
          last.body.data.map((site: { id: number }) => site.id),
          [siteIds[4]]
        )
        const exact = yield* get("/api/v1/sites?per_page=5", key)
        assert.deepStrictEqual(exact.body.meta, { page: 1, per_page: 5, total: 5, last_page: 1 })
      })
    )

    it.effect("an account with no websites has data [] and last_page 1", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key } = yield* app.makeAccount()
        const { status, body } = yield* get("/api/v1/sites", key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body, { data: [], meta: { page: 1, per_page: 20, total: 0, last_page: 1 } })
      })
    )

    it.effect("a page past last_page returns data [] with the correct meta", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithSites(3)
        const { status, body } = yield* get("/api/v1/sites?per_page=2&page=7", key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body, { data: [], meta: { page: 7, per_page: 2, total: 3, last_page: 2 } })
      })
    )

    it.effect("the largest safe page number returns data [], not a 500", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithSites(1)
        const { status, body } = yield* get(`/api/v1/sites?per_page=100&page=${Number.MAX_SAFE_INTEGER}`, key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body.data, [])
        assert.strictEqual(body.meta.total, 1)
      })
    )

    it.effect("per_page 1 and per_page 100 are accepted", () =>
      Effect.gen(function* () {
        const { key, siteIds } = yield* accountWithSites(2)
        const one = yield* get("/api/v1/sites?per_page=1&page=2", key)
        assert.strictEqual(one.status, 200)
        assert.deepStrictEqual(one.body.meta, { page: 2, per_page: 1, total: 2, last_page: 2 })
        assert.deepStrictEqual(
          one.body.data.map((site: { id: number }) => site.id),
          [siteIds[1]]
        )
        const hundred = yield* get("/api/v1/sites?per_page=100", key)
        assert.strictEqual(hundred.status, 200)
        assert.deepStrictEqual(hundred.body.meta, { page: 1, per_page: 100, total: 2, last_page: 1 })
      })
    )

    it.effect("GET /sites with per_page=101 is 422 validation_error with limit 100", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithSites(1)
        const result = yield* get("/api/v1/sites?per_page=101", key)
        assertValidationError(result)
        assert.strictEqual(result.body.limit, 100)
        assert.isString(result.body.message)
      })
    )

    for (const [name, query] of [
      ["per_page=0", "per_page=0"],
      ["per_page=-5", "per_page=-5"],
      ["non-integer per_page=2.5", "per_page=2.5"],
      ["non-numeric per_page=abc", "per_page=abc"],
      ["page=0", "page=0"],
      ["page=-1", "page=-1"],
      ["non-integer page=1.5", "page=1.5"],
      ["non-numeric page=first", "page=first"]
    ] as const) {
      it.effect(`GET /sites with ${name} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key } = yield* accountWithSites(1)
          assertValidationError(yield* get(`/api/v1/sites?${query}`, key))
        })
      )
    }
  })
})
