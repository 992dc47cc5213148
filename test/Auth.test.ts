import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { AccountId } from "../src/Domain/Ids.js"
import { type Answer, request } from "./support/Http.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

/** GET with the given headers; the status, the headers and the parsed JSON body. */
const get = (path: string, headers: Record<string, string> = {}) => request("GET", path, { headers })

type Result = Answer

const assertUnauthorized = (result: Result) => {
  assert.strictEqual(result.status, 401)
  assert.match(result.headers.get("www-authenticate") ?? "", /^Bearer/)
  assert.deepStrictEqual(Object.keys(result.body).sort(), ["error", "message"])
  assert.strictEqual(result.body.error, "unauthorized")
  assert.isString(result.body.message)
  assert.isAbove(result.body.message.length, 0)
}

const assertNotFound = (result: Result) => {
  assert.strictEqual(result.status, 404)
  assert.strictEqual(result.body.error, "not_found")
}

const assertForbidden = (result: Result) => {
  assert.strictEqual(result.status, 403)
  assert.strictEqual(result.body.error, "forbidden")
  assert.isString(result.body.message)
}

const siteIds = (result: Result) => result.body.data.map((site: { id: number }) => site.id)

/** An account with a website holding one article and one backlink. */
const accountWithContent = Effect.gen(function* () {
  const app = yield* TestApp
  const account = yield* app.makeAccount()
  const siteId = yield* app.makeSite(account.accountId)
  const articleId = yield* app.makeArticle(siteId, { published_at: "2026-10-10T10:00:00Z" })
  yield* app.makeBacklink(siteId, { acquired_at: "2026-10-10T10:00:00Z" })
  return { ...account, siteId, articleId }
})

const userIdOf = (email: string) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const row = yield* accounts.findByEmail(email)
    return Option.getOrThrow(row).user_id
  })

/** A key made directly through the service, so that its row (and id) is known. */
const createKey = (accountId: AccountId) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    return yield* keys.create({ accountId, name: "test key", isAdmin: false })
  })

layer(TestServerLive)("authentication and tenancy", (it) => {
  describe("credentials", () => {
    it.effect("Authorization: Bearer <key> is accepted", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        const result = yield* get("/api/v1/sites", { authorization: `Bearer ${key}` })
        assert.strictEqual(result.status, 200)
        assert.strictEqual(result.body.meta.total, 1)
      })
    )

    it.effect("X-API-Key: <key> is accepted", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        const result = yield* get("/api/v1/sites", { "x-api-key": key })
        assert.strictEqual(result.status, 200)
        assert.strictEqual(result.body.meta.total, 1)
      })
    )

    it.effect("Authorization is read first: a bad Authorization with a good X-API-Key is 401", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        assertUnauthorized(
          yield* get("/api/v1/sites", { authorization: "Bearer cbs_not-a-real-key", "x-api-key": key })
        )
        assertUnauthorized(yield* get("/api/v1/sites", { authorization: "Basic x", "x-api-key": key }))
      })
    )

    it.effect("Authorization is read first: a good Authorization with a bad X-API-Key is 200", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        const result = yield* get("/api/v1/sites", { authorization: `Bearer ${key}`, "x-api-key": "cbs_wrong" })
        assert.strictEqual(result.status, 200)
      })
    )

    for (const [name, header] of [
      ["Basic x", "Basic x"],
      ["Bearer with nothing after it", "Bearer"],
      ["Bearer with two tokens", "Bearer cbs_a cbs_b"],
      ["another scheme (Token <key>)", "Token KEY"],
      ["the bare key without a scheme", "KEY"],
      ["Basic with the key", "Basic KEY"]
    ] as const) {
      it.effect(`a malformed Authorization header (${name}) is 401 unauthorized with WWW-Authenticate`, () =>
        Effect.gen(function* () {
          const { key } = yield* accountWithContent
          assertUnauthorized(yield* get("/api/v1/sites", { authorization: header.replace("KEY", key) }))
        })
      )
    }

    it.effect("an empty X-API-Key is 401 unauthorized", () =>
      Effect.gen(function* () {
        assertUnauthorized(yield* get("/api/v1/sites", { "x-api-key": "" }))
      })
    )

    it.effect("an unknown key is 401 unauthorized in either header", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        // Same shape and prefix as a real key, one character different.
        const unknown = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`
        assertUnauthorized(yield* get("/api/v1/sites", { authorization: `Bearer ${unknown}` }))
        assertUnauthorized(yield* get("/api/v1/sites", { "x-api-key": unknown }))
        assertUnauthorized(yield* get("/api/v1/sites", { "x-api-key": "not-even-a-key" }))
      })
    )

    it.effect("a revoked key is 401 unauthorized while another key of the account still works", () =>
      Effect.gen(function* () {
        const { accountId, key: otherKey } = yield* accountWithContent
        const keys = yield* ApiKeys
        const { key, row } = yield* createKey(accountId)
        assert.strictEqual((yield* get("/api/v1/sites", { "x-api-key": key })).status, 200)
        yield* keys.revoke(row.id)
        assertUnauthorized(yield* get("/api/v1/sites", { "x-api-key": key }))
        assertUnauthorized(yield* get("/api/v1/sites", { authorization: `Bearer ${key}` }))
        assert.strictEqual((yield* get("/api/v1/sites", { "x-api-key": otherKey })).status, 200)
      })
    )

    it.effect("every authenticated endpoint without credentials is 401 with WWW-Authenticate: Bearer", () =>
      Effect.gen(function* () {
        const { siteId, articleId } = yield* accountWithContent
        for (const path of [
          "/api/v1/sites",
          `/api/v1/sites/${siteId}/articles`,
          `/api/v1/articles/${articleId}`,
          `/api/v1/sites/${siteId}/backlinks`,
          `/api/v1/sites/${siteId}/stats`
        ]) {
          assertUnauthorized(yield* get(path))
        }
      })
    )

    it.effect("credentials are checked before the path id: a bad id without credentials is 401", () =>
      Effect.gen(function* () {
        assertUnauthorized(yield* get("/api/v1/articles/abc"))
        assertUnauthorized(yield* get("/api/v1/sites/999999999/stats"))
      })
    )

    it.effect("a key is stored only as a hash: its text appears nowhere in its api_keys row", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { accountId } = yield* accountWithContent
        const { key, row } = yield* createKey(accountId)
        const secret = key.slice(12)
        const rows = yield* sql<Record<string, unknown>>`select * from api_keys where id = ${row.id}`
        assert.strictEqual(rows.length, 1)
        for (const [column, value] of Object.entries(rows[0]!)) {
          const forms =
            value instanceof Uint8Array
              ? [
                  Buffer.from(value).toString("utf8"),
                  Buffer.from(value).toString("hex"),
                  Buffer.from(value).toString("base64"),
                  Buffer.from(value).toString("base64url")
                ]
              : [String(value)]
          for (const form of forms) {
            assert.notInclude(form, key, `column ${column} holds the key`)
            assert.notInclude(form, secret, `column ${column} holds the secret part of the key`)
          }
        }
        const asText = yield* sql<{ t: string }>`select t::text as t from api_keys t where id = ${row.id}`
        assert.notInclude(asText[0]!.t, secret)
        // The stored hash is a digest of the key, not the key in another encoding.
        const hash = rows[0]!["key_hash"]
        assert.instanceOf(hash, Uint8Array)
        assert.strictEqual((hash as Uint8Array).length, 32)
      })
    )
  })

  describe("tenancy", () => {
    type Owner = Effect.Effect.Success<typeof accountWithContent>
    const siteOf = (owner: Owner): number => owner.siteId
    for (const [name, path, idOf] of [
      ["website's articles are", (id: number) => `/api/v1/sites/${id}/articles`, siteOf],
      ["website's backlinks are", (id: number) => `/api/v1/sites/${id}/backlinks`, siteOf],
      ["website's stats are", (id: number) => `/api/v1/sites/${id}/stats`, siteOf],
      ["article is", (id: number) => `/api/v1/articles/${id}`, (owner: Owner): number => owner.articleId]
    ] as const) {
      it.effect(`another account's ${name} 404 not_found, exactly like a missing one`, () =>
        Effect.gen(function* () {
          const owner = yield* accountWithContent
          const stranger = yield* accountWithContent
          const missingId = 999_999_999
          const foreign = yield* get(path(idOf(owner)), { "x-api-key": stranger.key })
          const missing = yield* get(path(missingId), { "x-api-key": stranger.key })
          assertNotFound(foreign)
          assertNotFound(missing)
          assert.deepStrictEqual(Object.keys(foreign.body).sort(), Object.keys(missing.body).sort())
          assert.strictEqual(
            foreign.body.message.replace(String(idOf(owner)), "ID"),
            missing.body.message.replace(String(missingId), "ID")
          )
          assert.strictEqual((yield* get(path(idOf(owner)), { "x-api-key": owner.key })).status, 200)
        })
      )
    }
  })

  describe("admin keys", () => {
    it.effect("an admin key lists every account's websites", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const first = yield* accountWithContent
        const second = yield* accountWithContent
        const admin = yield* app.makeAccount({ admin: true })
        const result = yield* get("/api/v1/sites?per_page=100", { "x-api-key": admin.key })
        assert.strictEqual(result.status, 200)
        assert.includeMembers(siteIds(result), [first.siteId, second.siteId])
        const ids = siteIds(result)
        assert.deepStrictEqual(
          ids,
          [...ids].sort((a: number, b: number) => a - b)
        )
      })
    )

    it.effect("an admin key reads another account's articles, article, backlinks and stats", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const owner = yield* accountWithContent
        const admin = yield* app.makeAccount({ admin: true })
        const headers = { "x-api-key": admin.key }
        const articles = yield* get(`/api/v1/sites/${owner.siteId}/articles`, headers)
        assert.strictEqual(articles.status, 200)
        assert.deepStrictEqual(
          articles.body.data.map((a: { id: number }) => a.id),
          [owner.articleId]
        )
        const article = yield* get(`/api/v1/articles/${owner.articleId}`, headers)
        assert.strictEqual(article.status, 200)
        assert.strictEqual(article.body.data.id, owner.articleId)
        const backlinks = yield* get(`/api/v1/sites/${owner.siteId}/backlinks`, headers)
        assert.strictEqual(backlinks.status, 200)
        assert.strictEqual(backlinks.body.meta.total, 1)
        const stats = yield* get(`/api/v1/sites/${owner.siteId}/stats?period=2026-10`, headers)
        assert.strictEqual(stats.status, 200)
        assert.strictEqual(stats.body.data.articles_published, 1)
        assert.strictEqual(stats.body.data.backlinks_acquired, 1)
      })
    )

    it.effect("an admin's account filter takes a user id or an e-mail and lists only that account's websites", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const target = yield* accountWithContent
        const secondSite = yield* app.makeSite(target.accountId)
        yield* accountWithContent
        const admin = yield* app.makeAccount({ admin: true })
        const userId = yield* userIdOf(target.email)
        for (const account of [String(userId), target.email]) {
          const result = yield* get(`/api/v1/sites?account=${encodeURIComponent(account)}`, {
            "x-api-key": admin.key
          })
          assert.strictEqual(result.status, 200)
          assert.deepStrictEqual(siteIds(result), [target.siteId, secondSite])
          assert.strictEqual(result.body.meta.total, 2)
        }
      })
    )

    it.effect("an admin's website filter matches a case-insensitive part of the website URL", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const owner = yield* app.makeAccount()
        const other = yield* app.makeAccount()
        const plumbing = yield* app.makeSite(owner.accountId, { website_url: "https://www.Quux-Plumbing.example.com/" })
        const heating = yield* app.makeSite(other.accountId, {
          website_url: "https://quux-plumbing-heating.example.org"
        })
        yield* app.makeSite(other.accountId, { website_url: "https://unrelated.example.net" })
        const admin = yield* app.makeAccount({ admin: true })
        const result = yield* get("/api/v1/sites?website=QUUX-plumbing", { "x-api-key": admin.key })
        assert.strictEqual(result.status, 200)
        assert.deepStrictEqual(siteIds(result), [plumbing, heating])
        const narrowed = yield* get(`/api/v1/sites?website=quux-plumbing&account=${encodeURIComponent(other.email)}`, {
          "x-api-key": admin.key
        })
        assert.deepStrictEqual(siteIds(narrowed), [heating])
      })
    )

    it.effect("an admin's website filter takes % and _ literally", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const owner = yield* app.makeAccount()
        const literal = yield* app.makeSite(owner.accountId, { website_url: "https://odd.example.com/a_b%c" })
        yield* app.makeSite(owner.accountId, { website_url: "https://odd.example.com/axbyc" })
        const admin = yield* app.makeAccount({ admin: true })
        const result = yield* get(`/api/v1/sites?website=${encodeURIComponent("a_b%c")}`, { "x-api-key": admin.key })
        assert.deepStrictEqual(siteIds(result), [literal])
      })
    )

    it.effect("a non-admin key using the account filter is 403 forbidden", () =>
      Effect.gen(function* () {
        const { key, email } = yield* accountWithContent
        assertForbidden(yield* get(`/api/v1/sites?account=${encodeURIComponent(email)}`, { "x-api-key": key }))
      })
    )

    it.effect("a non-admin key using the website filter is 403 forbidden", () =>
      Effect.gen(function* () {
        const { key } = yield* accountWithContent
        assertForbidden(yield* get("/api/v1/sites?website=example", { "x-api-key": key }))
      })
    )
  })
})
