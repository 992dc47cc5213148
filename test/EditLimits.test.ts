// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { setNow } from "./support/Clock.js"
import { editsUsed, useEdits } from "./support/EditQuota.js"
import { type Answer, articleData, patchArticle, putArticle, request } from "./support/Http.js"
import { type ArticleFields, articleOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

const EDITS_PER_DAY = 200

type Result = Answer

const setFeaturedImage = (id: number, key: string, url: string) =>
  request("POST", `/api/v1/articles/${id}/featured-image`, { key, json: { url } })

const assertOk = (result: Result) => assert.strictEqual(result.status, 200, JSON.stringify(result.body))

const assertEditLimitExceeded = (result: Result) => {
  assert.strictEqual(result.status, 429, JSON.stringify(result.body))
  assert.strictEqual(result.body.error, "edit_limit_exceeded")
  assert.strictEqual(result.body.limit, EDITS_PER_DAY)
  assert.isString(result.body.message)
  assert.match(result.headers.get("retry-after") ?? "", /^\d+$/)
}

const assertError = (result: Result, status: number, error: string) => {
  assert.strictEqual(result.status, status, JSON.stringify(result.body))
  assert.strictEqual(result.body.error, error)
}

const revisionCount = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      n: number
    }>`select count(*)::int as n from article_revisions where article_id = ${id}`.pipe(Effect.orDie)
    return rows[0]!.n
  })

/** At `now`, a new account's article (with `fields`) whose account has made `used` changes today. */
const articleWithEditsUsed = (now: string, used: number, fields?: ArticleFields) =>
  Effect.gen(function* () {
    yield* setNow(now)
    const article = yield* articleOfNewAccount(fields)
    yield* useEdits(article.accountId, used)
    return article
  })

const protectedBody =
  '<p>Intro with <a data-service-protected="backlink" href="https://partner.example.com/">partner site</a> in it.</p>'

/** A body holding `count` distinct tokens `token-1` … `token-N`, so that each PATCH can touch its own. */
const bodyWithTokens = (count: number) =>
  Array.from({ length: count }, (_, i) => `<p>Paragraph token-${i + 1}-end.</p>`).join("")

layer(TestServerLive)("edit limits", (it) => {
  describe("200 successful article changes per account per UTC day", () => {
    it.effect(
      "with 199 used, one PATCH succeeds and the next is 429 edit_limit_exceeded with limit 200 and Retry-After to the next UTC midnight",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T23:00:00Z", 199)
          assertOk(yield* patchArticle(id, key, { title: "The last edit of the day" }))
          assert.strictEqual(yield* editsUsed(accountId), 200)

          const refused = yield* patchArticle(id, key, { title: "One edit too many" })
          assertEditLimitExceeded(refused)
          assert.strictEqual(refused.headers.get("retry-after"), "3600")
          assert.strictEqual(refused.headers.get("ratelimit-limit"), "60")
          assert.strictEqual((yield* articleData(id, key)).title, "The last edit of the day")
          assert.strictEqual(yield* revisionCount(id), 1)
          assert.strictEqual(yield* editsUsed(accountId), 200)
        })
    )

    it.effect("Retry-After of the edit limit counts the seconds to the next UTC midnight at any time of day", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithEditsUsed("2026-11-21T10:15:30Z", EDITS_PER_DAY)
        const refused = yield* patchArticle(id, key, { title: "Refused" })
        assertEditLimitExceeded(refused)
        assert.strictEqual(refused.headers.get("retry-after"), String(13 * 3600 + 44 * 60 + 30))
      })
    )

    it.effect("at the limit PUT, PATCH and featured-image changes are all refused and nothing is saved", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T12:00:00Z", EDITS_PER_DAY, {
          title: "Original"
        })
        assertEditLimitExceeded(yield* putArticle(id, key, { body: "<p>New body.</p>" }))
        assertEditLimitExceeded(yield* patchArticle(id, key, { title: "New title" }))
        assertEditLimitExceeded(yield* setFeaturedImage(id, key, "https://cdn.example.com/new.png"))
        const article = yield* articleData(id, key)
        assert.strictEqual(article.title, "Original")
        assert.strictEqual(article.body, "<p>Some text.</p>")
        assert.isNull(article.featured_image_url)
        assert.strictEqual(yield* revisionCount(id), 0)
        assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY)
      })
    )

    it.effect("PUT, PATCH and featured-image changes each use one unit of the quota", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T12:00:00Z")
        const { key, id, accountId } = yield* articleOfNewAccount()
        assert.strictEqual(yield* editsUsed(accountId), 0)
        assertOk(yield* setFeaturedImage(id, key, "https://cdn.example.com/first.png"))
        assert.strictEqual(yield* editsUsed(accountId), 1)
        assertOk(yield* putArticle(id, key, { body: "<p>Rewritten body.</p>" }))
        assert.strictEqual(yield* editsUsed(accountId), 2)
        assertOk(yield* patchArticle(id, key, { title: "Patched" }))
        assert.strictEqual(yield* editsUsed(accountId), 3)
      })
    )

    it.effect("a featured-image change is the one that takes the last unit, and the next one is refused", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithEditsUsed("2026-11-21T12:00:00Z", EDITS_PER_DAY - 1)
        assertOk(yield* setFeaturedImage(id, key, "https://cdn.example.com/a.png"))
        assertEditLimitExceeded(yield* setFeaturedImage(id, key, "https://cdn.example.com/b.png"))
        assert.strictEqual((yield* articleData(id, key)).featured_image_url, "https://cdn.example.com/a.png")
      })
    )
  })

  describe("what does not use the quota", () => {
    it.effect(
      "rejected edits (409 replacement_conflict, 422 protected_link_violation, 422 disallowed_html, 422 validation_error, 404) leave the counter unchanged",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T12:00:00Z", EDITS_PER_DAY - 1, {
            body: protectedBody
          })
          const other = yield* articleOfNewAccount()

          assertError(
            yield* patchArticle(id, key, { replacements: [{ find: "not in the body", replace: "x" }] }),
            409,
            "replacement_conflict"
          )
          assertError(yield* putArticle(id, key, { body: "<p>No link left.</p>" }), 422, "protected_link_violation")
          assertError(yield* putArticle(id, key, { body: "<p>x</p><script>alert(1)</script>" }), 422, "disallowed_html")
          assertError(yield* patchArticle(id, key, { title: "   " }), 422, "validation_error")
          assertError(yield* patchArticle(999_999, key, { title: "Nowhere" }), 404, "not_found")
          assertError(yield* patchArticle(other.id, key, { title: "Someone else's" }), 404, "not_found")
          assertError(yield* setFeaturedImage(other.id, key, "https://cdn.example.com/x.png"), 404, "not_found")
          assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY - 1)
          assert.strictEqual(yield* editsUsed(other.accountId), 0)

          // The unit the rejected edits did not take is still there.
          assertOk(yield* patchArticle(id, key, { title: "Accepted" }))
          assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY)
        })
    )

    it.effect("an edit that changes nothing answers 200 and uses no quota", () =>
      Effect.gen(function* () {
        const image = "https://cdn.example.com/same.png"
        const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T12:00:00Z", EDITS_PER_DAY - 1, {
          title: "Same",
          featured_image_url: image
        })
        const current = yield* articleData(id, key)
        assertOk(yield* patchArticle(id, key, { title: "Same" }))
        assertOk(yield* putArticle(id, key, { body: current.body }))
        assertOk(yield* setFeaturedImage(id, key, image))
        assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY - 1)
        assert.strictEqual(yield* revisionCount(id), 0)
        assertOk(yield* patchArticle(id, key, { title: "Different" }))
        assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY)
      })
    )
  })

  describe("concurrency", () => {
    it.effect(
      "20 concurrent PATCHes of one article at 195 used: exactly 5 succeed, 15 are 429 and exactly 5 revisions exist",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T12:00:00Z", EDITS_PER_DAY - 5, {
            body: bodyWithTokens(20)
          })
          const results = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i + 1),
            (n) => patchArticle(id, key, { replacements: [{ find: `token-${n}-end`, replace: `done-${n}-end` }] }),
            { concurrency: "unbounded" }
          )
          const statuses = results.map((result) => result.status)
          assert.strictEqual(statuses.filter((status) => status === 200).length, 5, JSON.stringify(statuses))
          const refused = results.filter((result) => result.status === 429)
          assert.strictEqual(refused.length, 15, JSON.stringify(statuses))
          for (const result of refused) assertEditLimitExceeded(result)
          assert.strictEqual(yield* revisionCount(id), 5)
          assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY)
          // Every success was saved and none was lost to another.
          const body: string = (yield* articleData(id, key)).body
          assert.strictEqual(body.match(/done-\d+-end/g)?.length ?? 0, 5, body)
        })
    )

    it.effect("20 concurrent PATCHes of 20 articles of one account at 195 used: exactly 5 succeed", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T12:00:00Z")
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const siteId = yield* app.makeSite(accountId)
        const ids = yield* Effect.forEach(Array.from({ length: 20 }), () => app.makeArticle(siteId))
        yield* useEdits(accountId, EDITS_PER_DAY - 5)
        const results = yield* Effect.forEach(ids, (id) => patchArticle(id, key, { title: `Edited ${id}` }), {
          concurrency: "unbounded"
        })
        const statuses = results.map((result) => result.status)
        assert.strictEqual(statuses.filter((status) => status === 200).length, 5, JSON.stringify(statuses))
        assert.strictEqual(statuses.filter((status) => status === 429).length, 15, JSON.stringify(statuses))
        const revisions = yield* Effect.forEach(ids, revisionCount)
        assert.strictEqual(
          revisions.reduce((a, b) => a + b, 0),
          5
        )
        assert.strictEqual(yield* editsUsed(accountId), EDITS_PER_DAY)
      })
    )
  })

  describe("days and accounts", () => {
    it.effect("one second before UTC midnight the quota is still used up; at midnight it is fresh", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T23:59:59Z", EDITS_PER_DAY)
        const refused = yield* patchArticle(id, key, { title: "Too late today" })
        assertEditLimitExceeded(refused)
        assert.strictEqual(refused.headers.get("retry-after"), "1")
        yield* TestClock.adjust("1 second")
        assertOk(yield* patchArticle(id, key, { title: "Early tomorrow" }))
        assert.strictEqual(yield* editsUsed(accountId, "2026-11-22"), 1)
        assert.strictEqual(yield* editsUsed(accountId, "2026-11-21"), EDITS_PER_DAY)
      })
    )

    it.effect("the next UTC day the quota is fresh: 200 more edits are allowed", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* articleWithEditsUsed("2026-11-21T23:00:00Z", EDITS_PER_DAY)
        assertEditLimitExceeded(yield* patchArticle(id, key, { title: "Refused" }))
        yield* TestClock.adjust("90 minutes")
        assertOk(yield* patchArticle(id, key, { title: "A new day" }))
        assert.strictEqual(yield* editsUsed(accountId), 1)
        yield* useEdits(accountId, EDITS_PER_DAY - 1)
        assertOk(yield* patchArticle(id, key, { title: "The 200th of the new day" }))
        assertEditLimitExceeded(yield* patchArticle(id, key, { title: "The 201st of the new day" }))
      })
    )

    it.effect("the quota is per account: another account is unaffected by one that used it up", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T12:00:00Z")
        const spent = yield* articleOfNewAccount()
        const fresh = yield* articleOfNewAccount()
        yield* useEdits(spent.accountId, EDITS_PER_DAY)
        assertEditLimitExceeded(yield* patchArticle(spent.id, spent.key, { title: "Refused" }))
        assertOk(yield* patchArticle(fresh.id, fresh.key, { title: "Allowed" }))
        assert.strictEqual(yield* editsUsed(fresh.accountId), 1)
        assert.strictEqual(yield* editsUsed(spent.accountId), EDITS_PER_DAY)
      })
    )

    it.effect("two keys of one account share the account's quota", () =>
      Effect.gen(function* () {
        yield* setNow("2026-11-21T12:00:00Z")
        const app = yield* TestApp
        const { key, id, accountId } = yield* articleOfNewAccount()
        const second = yield* app.makeKey(accountId)
        yield* useEdits(accountId, EDITS_PER_DAY - 1)
        assertOk(yield* patchArticle(id, key, { title: "With the first key" }))
        assertEditLimitExceeded(yield* patchArticle(id, second, { title: "With the second key" }))
      })
    )
  })
})
