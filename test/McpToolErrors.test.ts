// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { clockStarts } from "./support/Clock.js"
import { foreignArticle, makeFixtures, PARTNER, PROTECTED_BODY, storedArticle } from "./support/McpFixtures.js"
import { type McpUser, newMcpUser, sharedMcpUser, toolData, toolError } from "./support/McpSession.js"
import { type ArticleFields, TestApp, TestServerLive } from "./support/TestServer.js"

const EDITS_PER_DAY = 200

/** Each test starts a minute past the previous test's start: no two share a request-limit window. */
const startClock = clockStarts("61 seconds")
const sharedSession = sharedMcpUser()

/** The test's start with a user of its own, for the tests that use up its edits or count its audit rows. */
const startedOwnUser = Effect.zipRight(startClock, newMcpUser)

/** `user` (signed in at the test's start), a new website of its account, and an article on it. */
const articleOf = <R>(user: Effect.Effect<McpUser, never, R>, fields: ArticleFields) =>
  Effect.gen(function* () {
    const session = yield* user
    const app = yield* TestApp
    const site = yield* app.makeSite(session.accountId)
    const id = yield* app.makeArticle(site, fields)
    return { session, site, id }
  })

/** The test's start: the file's signed-in user, a new website of its account, and an article on it. */
const articleOfSession = (fields: ArticleFields) => articleOf(Effect.zipRight(startClock, sharedSession), fields)

/** The article as it was made: this body, and no revision since. */
const assertUnchanged = (id: ArticleId, body: string) =>
  Effect.gen(function* () {
    const stored = yield* storedArticle(id)
    assert.strictEqual(stored.body, body)
    assert.strictEqual(stored.revision, 0)
  })

layer(TestServerLive)("MCP interface", (it) => {
  describe("tool errors", () => {
    it.effect("another account's article is not_found for get_article and update_article, and stays unchanged", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { article } = yield* foreignArticle
        assert.strictEqual((yield* toolError(session, "get_article", { article_id: article })).error, "not_found")
        const update = yield* toolError(session, "update_article", { article_id: article, title: "Taken over" })
        assert.strictEqual(update.error, "not_found")
        const image = yield* toolError(session, "replace_featured_image", {
          article_id: article,
          url: "https://cdn.example.com/x.png"
        })
        assert.strictEqual(image.error, "not_found")
        const stored = yield* storedArticle(article)
        assert.strictEqual(stored.title, "Not yours")
        assert.strictEqual(stored.revision, 0)
      })
    )

    it.effect(
      "update_article that drops a protected link is protected_link_violation listing the link; the body stays",
      () =>
        Effect.gen(function* () {
          const { session, id } = yield* articleOfSession({ body: PROTECTED_BODY })
          const before = (yield* toolData(session, "get_article", { article_id: id })).data.body
          const replaced = yield* toolError(session, "update_article", {
            article_id: id,
            body: "<p>Read about it today.</p>"
          })
          assert.strictEqual(replaced.error, "protected_link_violation")
          assert.deepStrictEqual(replaced.protected_links, [PARTNER])
          const patched = yield* toolError(session, "update_article", {
            article_id: id,
            replacements: [{ find: PARTNER.text, replace: "a friend" }]
          })
          assert.strictEqual(patched.error, "protected_link_violation")
          // The dropped link is listed (the forged one with the new text may be listed too).
          assert.deepInclude(patched.protected_links, PARTNER)
          const after = (yield* toolData(session, "get_article", { article_id: id })).data
          assert.strictEqual(after.body, before)
          assert.deepStrictEqual(after.protected_links, [PARTNER])
          yield* assertUnchanged(id, PROTECTED_BODY)
        })
    )

    it.effect("get_article reads the meta_description update_article wrote, and null for an article without one", () =>
      Effect.gen(function* () {
        const { session, id } = yield* articleOfSession({ meta_description: null })
        assert.isNull((yield* toolData(session, "get_article", { article_id: id })).data.meta_description)
        const updated = yield* toolData(session, "update_article", { article_id: id, meta_description: "Short." })
        assert.strictEqual(updated.data.meta_description, "Short.")
        assert.strictEqual(
          (yield* toolData(session, "get_article", { article_id: id })).data.meta_description,
          "Short."
        )
      })
    )

    it.effect("update_article with body together with replacements or meta_description is a validation_error", () =>
      Effect.gen(function* () {
        const { session, id } = yield* articleOfSession({ body: "<p>red fish</p>" })
        for (const extra of [{ replacements: [{ find: "red", replace: "blue" }] }, { meta_description: "A fish." }]) {
          const body = yield* toolError(session, "update_article", {
            article_id: id,
            body: "<p>blue fish</p>",
            ...extra
          })
          assert.strictEqual(body.error, "validation_error", JSON.stringify(extra))
        }
        yield* assertUnchanged(id, "<p>red fish</p>")
      })
    )

    it.effect("update_article over the body's bounds (characters, elements) is validation_error with limit", () =>
      Effect.gen(function* () {
        const { session, id } = yield* articleOfSession({ body: "<p>red fish</p>" })
        for (const [body, limit] of [
          [`<p>${"x".repeat(MAX_BODY_CHARACTERS)}</p>`, MAX_BODY_CHARACTERS],
          ["<p>x".repeat(MAX_BODY_ELEMENTS + 1), MAX_BODY_ELEMENTS]
        ] as const) {
          const refused = yield* toolError(session, "update_article", { article_id: id, body })
          assert.strictEqual(refused.error, "validation_error")
          assert.strictEqual(refused.limit, limit)
          assert.include(refused.message, "body")
        }
        yield* assertUnchanged(id, "<p>red fish</p>")
      })
    )

    it.effect("update_article with a find that occurs twice is replacement_conflict and saves nothing", () =>
      Effect.gen(function* () {
        const { session, id } = yield* articleOfSession({ title: "Fish", body: "<p>red fish, red fish</p>" })
        const body = yield* toolError(session, "update_article", {
          article_id: id,
          title: "New fish",
          replacements: [{ find: "red", replace: "blue" }]
        })
        assert.strictEqual(body.error, "replacement_conflict")
        assert.include(body.message, "replacements[0]")
        assert.match(body.message, /\b2\b/)
        const stored = yield* storedArticle(id)
        assert.strictEqual(stored.body, "<p>red fish, red fish</p>")
        assert.strictEqual(stored.title, "Fish")
      })
    )

    it.effect("a header argument no HTTP header can carry (beyond U+00FF, a line break) is validation_error", () =>
      Effect.gen(function* () {
        const { session, id: article } = yield* articleOfSession({ title: "Kept", body: "<p>Kept.</p>" })
        for (const ifMatch of ['"\u{3C01D}"', '"1"\r\nx-api-key: k', '"\u0000"']) {
          const body = yield* toolError(session, "update_article", {
            article_id: article,
            if_match: ifMatch,
            title: "T"
          })
          assert.strictEqual(body.error, "validation_error", `${JSON.stringify(ifMatch)}: ${body.message}`)
          assert.include(body.message, "if_match")
        }
        const key = yield* toolError(session, "update_article", {
          article_id: article,
          idempotency_key: "ключ",
          title: "T"
        })
        assert.strictEqual(key.error, "validation_error", key.message)
      })
    )

    it.effect('malformed arguments are validation_error: site_id "abc", per_page 101, unknown values and fields', () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const site = yield* app.makeSite(session.accountId)
        const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["list_articles", { site_id: "abc" }],
          ["list_backlinks", { site_id: -1 }],
          ["get_article", {}],
          ["get_stats", { site_id: site, period: "2026-02-30" }],
          ["list_articles", { site_id: site, status: "archived" }],
          ["list_articles", { site_id: site, from: "2026-10-05", to: "2026-10-01" }],
          ["list_sites", { per_page: 0 }],
          ["list_articles", { site_id: site, per_page: 101 }],
          ["list_sites", { unknown_argument: true }]
        ]
        for (const [name, args] of cases) {
          const body = yield* toolError(session, name, args)
          assert.strictEqual(body.error, "validation_error", `${name} ${JSON.stringify(args)}: ${body.message}`)
        }
      })
    )

    it.effect(
      "an argument over its bound carries the limit: per_page 101 → 100, a 256-character title → 255, 51 replacements → 50",
      () =>
        Effect.gen(function* () {
          const { session, site, id } = yield* articleOfSession({ title: "Bounded" })
          const tooMany = yield* toolError(session, "list_articles", { site_id: site, per_page: 101 })
          assert.strictEqual(tooMany.error, "validation_error")
          assert.strictEqual(tooMany.limit, 100, JSON.stringify(tooMany))
          const longTitle = yield* toolError(session, "update_article", {
            article_id: id,
            title: "x".repeat(256)
          })
          assert.strictEqual(longTitle.error, "validation_error")
          assert.strictEqual(longTitle.limit, 255, JSON.stringify(longTitle))
          const replacements = Array.from({ length: 51 }, (_, i) => ({ find: `x${i}`, replace: "y" }))
          const tooManyReplacements = yield* toolError(session, "update_article", { article_id: id, replacements })
          assert.strictEqual(tooManyReplacements.error, "validation_error")
          assert.strictEqual(tooManyReplacements.limit, 50, JSON.stringify(tooManyReplacements))
          assert.strictEqual((yield* storedArticle(id)).title, "Bounded")
        })
    )

    it.effect(
      "with the account's 200 edits for the UTC day used, edits through MCP are edit_limit_exceeded with limit 200",
      () =>
        Effect.gen(function* () {
          const { session, id } = yield* articleOf(startedOwnUser, { title: "Quota", body: "<p>red fish</p>" })
          const sql = yield* SqlClient.SqlClient
          const today = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
          yield* sql`insert into edit_counters (account_id, day, count)
            values (${session.accountId}, ${today}::date, ${EDITS_PER_DAY - 1})`.pipe(Effect.orDie)
          // The 200th edit of the day still goes through.
          yield* toolData(session, "update_article", { article_id: id, title: "Quota 200" })
          for (const [name, args] of [
            ["update_article", { article_id: id, title: "Quota 201" }],
            ["update_article", { article_id: id, body: "<p>blue fish</p>" }],
            ["replace_featured_image", { article_id: id, url: "https://cdn.example.com/q.png" }]
          ] as const) {
            const body = yield* toolError(session, name, args)
            assert.strictEqual(body.error, "edit_limit_exceeded", name)
            assert.strictEqual(body.limit, EDITS_PER_DAY)
          }
          const stored = yield* storedArticle(id)
          assert.strictEqual(stored.title, "Quota 200")
          assert.strictEqual(stored.body, "<p>red fish</p>")
          const used = yield* sql<{ count: number }>`
            select count from edit_counters where account_id = ${session.accountId} and day = ${today}::date`.pipe(
            Effect.orDie
          )
          assert.strictEqual(used[0]!.count, EDITS_PER_DAY)
          // Reading still works.
          assert.strictEqual((yield* toolData(session, "get_article", { article_id: id })).data.title, "Quota 200")
        })
    )

    it.effect("every tool call is in audit_log with origin MCP, the tool, the user, the status and the article", () =>
      Effect.gen(function* () {
        const session = yield* startedOwnUser
        const { site, linked, later } = yield* makeFixtures(session.accountId)
        const missing = 999_999_999
        yield* toolData(session, "list_sites", {})
        yield* toolData(session, "list_articles", { site_id: site })
        yield* toolData(session, "get_article", { article_id: linked })
        yield* toolData(session, "list_backlinks", { site_id: site })
        yield* toolData(session, "get_stats", { site_id: site })
        yield* readRowsWritten
        yield* toolData(session, "update_article", { article_id: later, title: "Audited" })
        yield* toolData(session, "replace_featured_image", { article_id: later, url: "https://cdn.example.com/a.png" })
        yield* toolError(session, "get_article", { article_id: missing })
        yield* readRowsWritten
        yield* toolError(session, "update_article", { article_id: linked, body: "<p>No link.</p>" })
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{
          origin: string
          tool: string | null
          user_id: number | null
          account_id: number | null
          api_key_id: number | null
          article_id: number | null
          status: number
          method: string | null
          path: string | null
          duration_ms: number
        }>`select origin, tool, user_id, account_id, api_key_id, article_id, status, method, path, duration_ms
           from audit_log where user_id = ${session.userId} order by id`.pipe(Effect.orDie)
        assert.deepStrictEqual(
          rows.map((row) => [row.tool, row.article_id === null ? null : Number(row.article_id), row.status]),
          [
            ["list_sites", null, 200],
            ["list_articles", null, 200],
            ["get_article", linked, 200],
            ["list_backlinks", null, 200],
            ["get_stats", null, 200],
            ["update_article", later, 200],
            ["replace_featured_image", later, 200],
            ["get_article", missing, 404],
            ["update_article", linked, 422]
          ]
        )
        for (const row of rows) {
          assert.strictEqual(row.origin, "MCP")
          assert.strictEqual(Number(row.account_id), session.accountId)
          assert.isNull(row.api_key_id)
          assert.isNull(row.method)
          assert.isNull(row.path)
          assert.isAtLeast(row.duration_ms, 0)
        }
      })
    )
  })
})
