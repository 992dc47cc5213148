import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { makeBrowser, postRpc, signInWithSdk, toolsCall, toolsList } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { PASSWORD } from "./support/WebPages.js"

/**
 * Limits an assistant can plan with: every API answer's `RateLimit` header states the credential's requests left
 * this minute and the account's article changes left today; every tool result carries the same numbers in its
 * `_meta`, read from its endpoint's answer; a dry run uses no change, and the write tools say so.
 */

const LIMITS = "content-backlink-service/limits"

/** `"requests";r=N;t=S, "edits";r=M;t=T` as numbers. */
const rateLimitOf = (headers: Headers) => {
  const field = headers.get("ratelimit") ?? ""
  const match = /^"requests";r=(\d+);t=(\d+), "edits";r=(\d+);t=(\d+)$/.exec(field)
  assert.isNotNull(match, field)
  return { requests: Number(match![1]), edits: Number(match![3]), editsReset: Number(match![4]) }
}

interface ToolLimits {
  readonly requests_remaining: number
  readonly requests_reset_seconds: number
  readonly edits_remaining: number
  readonly edits_reset_seconds: number
}

layer(TestServerLive)("limits an assistant can plan with", (it) => {
  it.effect("REST answers and tool results state the requests left this minute and the changes left today, alike", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.now())
      const app = yield* TestApp
      const email = `limits-${randomBytes(4).toString("hex")}@example.com`
      const { accountId, key } = yield* app.makeAccount({ email, password: PASSWORD })
      const site = yield* app.makeSite(accountId)
      const article = yield* app.makeArticle(site, { title: "Pipes", body: "<p>Drain them.</p>" })
      const rest = (method: string, path: string, body?: unknown) =>
        Effect.promise(async () => {
          const res = await fetch(`${app.baseUrl}${path}`, {
            method,
            headers: { "x-api-key": key, "content-type": "application/json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) })
          })
          await res.arrayBuffer()
          return { status: res.status, limits: rateLimitOf(res.headers) }
        })

      const first = yield* rest("GET", `/api/v1/articles/${article}`)
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.limits.edits, 200)
      assert.isAbove(first.limits.editsReset, 0)
      const second = yield* rest("GET", `/api/v1/articles/${article}`)
      assert.strictEqual(second.limits.requests, first.limits.requests - 1)
      // A dry run uses no change; a change uses one, and its own answer says so.
      const preview = yield* rest("PATCH", `/api/v1/articles/${article}?dry_run=true`, { title: "Pipes in winter" })
      assert.strictEqual(preview.status, 200)
      assert.strictEqual(preview.limits.edits, 200)
      const changed = yield* rest("PATCH", `/api/v1/articles/${article}`, { title: "Pipes in winter" })
      assert.strictEqual(changed.status, 200)
      assert.strictEqual(changed.limits.edits, 199)

      // Through MCP, as the account's user: the same account's changes left, in every result's _meta.
      const mcpUrl = `${app.baseUrl}/mcp`
      const { accessToken } = yield* signInWithSdk({
        mcpUrl,
        browser: makeBrowser(app.baseUrl),
        user: { email, password: PASSWORD }
      })
      const call = (name: string, args: Record<string, unknown>) =>
        Effect.map(postRpc(mcpUrl, accessToken, toolsCall(name, args)), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return JSON.parse(reply.text).result._meta[LIMITS] as ToolLimits
        })
      const read = yield* call("get_article", { article_id: article })
      assert.strictEqual(read.edits_remaining, 199)
      const again = yield* call("get_article", { article_id: article })
      assert.strictEqual(again.requests_remaining, read.requests_remaining - 1)
      assert.isAbove(again.requests_reset_seconds, 0)
      const dry = yield* call("update_article", { article_id: article, title: "Dry", dry_run: true })
      assert.strictEqual(dry.edits_remaining, 199)
      const edit = yield* call("update_article", { article_id: article, title: "Pipes in a cold winter" })
      assert.strictEqual(edit.edits_remaining, 198)
      // A tool error carries them too.
      const missing = yield* call("get_article", { article_id: 999_999_999 })
      assert.strictEqual(missing.edits_remaining, 198)
      // The API key's next answer states the same changes left, with the same time to midnight.
      const after = yield* rest("GET", `/api/v1/articles/${article}`)
      assert.strictEqual(after.limits.edits, edit.edits_remaining)
      assert.strictEqual(after.limits.editsReset, edit.edits_reset_seconds)

      // The write tools say what a dry run costs.
      const listed = yield* postRpc(mcpUrl, accessToken, toolsList)
      const tools = JSON.parse(listed.text).result.tools as Array<{
        name: string
        inputSchema: { properties: Record<string, { description?: string }> }
      }>
      for (const name of ["update_article", "replace_featured_image"]) {
        const dryRun = tools.find((tool) => tool.name === name)!.inputSchema.properties["dry_run"]
        assert.include(dryRun?.description, "saves nothing, uses none of the day's edits", name)
      }
    })
  )
})
