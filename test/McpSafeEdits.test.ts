// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { clockStarts } from "./support/Clock.js"
import { makeFixtures, PARTNER, storedArticle } from "./support/McpFixtures.js"
import { newMcpUser, toolData, toolError } from "./support/McpSession.js"
import { TestServerLive } from "./support/TestServer.js"

/** Each test starts a minute past the previous test's start: no two share a request-limit window. */
const startClock = clockStarts("61 seconds")

/** The test's start: a new signed-in user (its edits and requests its own) and the fixtures of its account. */
const fixturesOfNewUser = Effect.gen(function* () {
  yield* startClock
  const session = yield* newMcpUser
  return { session, ...(yield* makeFixtures(session.accountId)) }
})

layer(TestServerLive)("MCP interface", (it) => {
  describe("safe edits through the agent tools", () => {
    const revisionCount = (id: ArticleId) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`select count(*)::int as n from article_revisions where article_id = ${id}`.pipe(
          Effect.map((rows) => rows[0]!.n),
          Effect.orDie
        )
      )

    it.effect("two tool calls with the same if_match at once: one saves, one is precondition_failed", () =>
      Effect.gen(function* () {
        const { session, later } = yield* fixturesOfNewUser
        const replies = yield* Effect.all(
          ["Writer A", "Writer B"].map((title) =>
            session.callTool("update_article", { article_id: later, title, if_match: '"0"' })
          ),
          { concurrency: "unbounded" }
        )
        assert.sameMembers(
          replies.map((reply) => (reply.isError ? reply.text.error : "ok")),
          ["ok", "precondition_failed"]
        )
        assert.strictEqual(yield* revisionCount(later), 1)
      })
    )

    it.effect("a retried tool call with the same idempotency_key replays the first answer and changes once", () =>
      Effect.gen(function* () {
        const { session, later } = yield* fixturesOfNewUser
        const args = { article_id: later, title: "Exactly once", idempotency_key: "assistant-retry-1" }
        const first = yield* session.callTool("update_article", args)
        const retry = yield* session.callTool("update_article", args)
        assert.isFalse(retry.isError)
        assert.deepStrictEqual(retry.text, first.text)
        assert.strictEqual(yield* revisionCount(later), 1)
        const reused = yield* toolError(session, "update_article", { ...args, title: "Something else" })
        assert.strictEqual(reused.error, "idempotency_key_reused")
      })
    )

    it.effect(
      "dry_run through the tool: a violation is the real error, a valid edit is a preview that saves nothing",
      () =>
        Effect.gen(function* () {
          const { session, linked } = yield* fixturesOfNewUser
          const before = yield* storedArticle(linked)
          const removal = { replacements: [{ find: `>${PARTNER.text}</a>`, replace: ">them</a>" }] }
          const dry = yield* toolError(session, "update_article", { article_id: linked, ...removal, dry_run: true })
          const real = yield* toolError(session, "update_article", { article_id: linked, ...removal })
          assert.strictEqual(dry.error, "protected_link_violation")
          assert.deepStrictEqual(dry, real)
          const preview = yield* toolData(session, "update_article", {
            article_id: linked,
            replacements: [{ find: "today", replace: "this week" }],
            dry_run: true
          })
          assert.isTrue(preview.preview.changed)
          assert.include(preview.preview.diff, "this week")
          assert.deepStrictEqual(yield* storedArticle(linked), before)
          assert.strictEqual(yield* revisionCount(linked), 0)
        })
    )
  })
})
