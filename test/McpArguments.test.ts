// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, TestClock } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { newMcpSession } from "./support/McpSession.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

/**
 * The test's "now": the server runs on the test clock, which stands still. Each test starts at least a minute after
 * the previous one, so that no two tests share a request-limit window.
 */
let lastStart = 0
const startClock = Effect.suspend(() => {
  lastStart = Math.max(Date.now(), lastStart + 61_000)
  return TestClock.setTime(lastStart)
})

/** A new signed-in user, and the SDK's own client connected with its tokens; closed with the scope. */
const connected = Effect.gen(function* () {
  const session = yield* newMcpSession
  const client = yield* Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "arguments-test", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(session.mcpUrl), { authProvider: session.provider })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )
  /** A tool call through the client: whether it is an error, and its text parsed. */
  const call = (name: string, args: Record<string, unknown>) =>
    Effect.map(
      Effect.promise(() => client.callTool({ name, arguments: args })),
      (result) => ({
        isError: result.isError === true,
        body: JSON.parse((result.content as ReadonlyArray<{ readonly text: string }>)[0]!.text)
      })
    )
  return { session, client, call }
})

/** Three published articles on the website, one a day in October 2026. */
const threeArticles = (siteId: SiteId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    for (const day of ["01", "02", "03"]) {
      yield* app.makeArticle(siteId, { published_at: `2026-10-${day}T09:00:00Z` })
    }
  })

layer(TestServerLive)("tool arguments as models send them", (it) => {
  describe("an optional argument given as null is one not given", () => {
    it.scoped("every optional argument in the tool list admits null, as anyOf its type and null", () =>
      Effect.gen(function* () {
        yield* startClock
        const { client } = yield* connected
        const { tools } = yield* Effect.promise(() => client.listTools())
        for (const tool of tools) {
          const required = tool.inputSchema.required ?? []
          for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
            const anyOf = (schema as { readonly anyOf?: ReadonlyArray<Record<string, unknown>> }).anyOf
            if (required.includes(name)) {
              assert.isUndefined(anyOf, `${tool.name}.${name} is required`)
              continue
            }
            assert.isArray(anyOf, `${tool.name}.${name}`)
            assert.deepStrictEqual(anyOf![1], { type: "null" }, `${tool.name}.${name}`)
            // Each branch has a single type (no `type` list, which validators refuse in strict mode).
            assert.isString(anyOf![0]!["type"], `${tool.name}.${name}`)
          }
        }
      })
    )

    it.scoped("list_articles with from: null and per_page: null answers as if they were left out", () =>
      Effect.gen(function* () {
        yield* startClock
        const { session, call } = yield* connected
        yield* threeArticles(session.siteId)
        const omitted = yield* call("list_articles", { site_id: session.siteId })
        const nulls = yield* call("list_articles", {
          site_id: session.siteId,
          from: null,
          to: null,
          status: null,
          page: null,
          per_page: null
        })
        assert.isFalse(nulls.isError, JSON.stringify(nulls.body))
        assert.deepStrictEqual(nulls.body, omitted.body)
        assert.deepStrictEqual(nulls.body.meta, { page: 1, per_page: 20, total: 3, last_page: 1 })
      })
    )

    it.scoped("update_article with reason: null (and body: null) is the edit without them: a PATCH, no reason", () =>
      Effect.gen(function* () {
        yield* startClock
        const { session, call } = yield* connected
        const app = yield* TestApp
        const articleId = yield* app.makeArticle(session.siteId, { title: "Before" })
        const edited = yield* call("update_article", {
          article_id: articleId,
          title: "After",
          body: null,
          meta_description: null,
          replacements: null,
          reason: null,
          dry_run: null,
          if_match: null,
          idempotency_key: null
        })
        assert.isFalse(edited.isError, JSON.stringify(edited.body))
        assert.strictEqual(edited.body.data.title, "After")
        // The body stayed: the call was the PATCH (a body of null is no body, not the PUT).
        assert.strictEqual(edited.body.data.body, "<p>Some text.</p>")
        const sql = yield* SqlClient.SqlClient
        const revisions = yield* sql<{ reason: string | null; title: string }>`
          select reason, title from article_revisions where article_id = ${articleId} order by number`.pipe(
          Effect.orDie
        )
        assert.deepStrictEqual(revisions.at(-1), { reason: null, title: "After" })
      })
    )

    it.scoped("a required argument given as null is still refused, naming it", () =>
      Effect.gen(function* () {
        yield* startClock
        const { call } = yield* connected
        const refused = yield* call("get_article", { article_id: null })
        assert.isTrue(refused.isError)
        assert.strictEqual(refused.body.error, "validation_error")
        assert.match(refused.body.message, /^article_id: /)
      })
    )
  })

  describe("integer arguments", () => {
    it.scoped("a page or per_page that is not written in digits is 422 validation_error naming it", () =>
      Effect.gen(function* () {
        yield* startClock
        const { session, call } = yield* connected
        for (const [name, value] of [
          ["page", "0x10"],
          ["per_page", "1e2"],
          ["per_page", 2.5]
        ] as const) {
          const refused = yield* call("list_articles", { site_id: session.siteId, [name]: value })
          assert.isTrue(refused.isError, `${name}=${value}`)
          assert.strictEqual(refused.body.error, "validation_error")
          assert.strictEqual(
            refused.body.message,
            `${name}: must be a whole number from 1 to ${name === "page" ? "999999999" : "100"}`
          )
        }
        // A JSON number is its value, however it is written in the JSON: 1e2 is 100.
        const hundred = yield* call("list_articles", { site_id: session.siteId, per_page: 1e2 })
        assert.strictEqual(hundred.body.meta.per_page, 100)
      })
    )
  })
})
