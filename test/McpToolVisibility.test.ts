// @tags: runtime
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { toolsFor } from "../src/Mcp/ToolCalls.js"
import { clockStarts } from "./support/Clock.js"
import { makeBrowser, postRpc, signInWithSdk, toolsCall, toolsList } from "./support/McpClient.js"
import { makeFixtures, storedArticle } from "./support/McpFixtures.js"
import { mcpAddress, sharedMcpUser } from "./support/McpSession.js"
import { TestServerLive } from "./support/TestServer.js"
import { readToolNames, serviceTools } from "./support/Tools.js"
import { PASSWORD } from "./support/WebPages.js"

/**
 * What an assistant's model is given: the tool list of its connection (every entry costs context on every turn, so a
 * connection lists only the tools it may call), and each tool result as text (many clients give the model only the
 * text `content`, never `structuredContent`).
 */

const startClock = clockStarts("61 seconds")
const sharedUser = sharedMcpUser()

/** The names a `tools/list` answer lists, in its order. */
const listedNames = (mcpUrl: string, token: string) =>
  Effect.map(postRpc(mcpUrl, token, toolsList), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    const tools = JSON.parse(reply.text).result.tools as ReadonlyArray<{ readonly name: string }>
    return tools.map((tool) => tool.name)
  })

/** A tool result as a client that drops `structuredContent` reads it: its text content parsed as JSON. */
const resultOf = (mcpUrl: string, token: string, name: string, args: Record<string, unknown>) =>
  Effect.map(postRpc(mcpUrl, token, toolsCall(name, args)), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    const result = JSON.parse(reply.text).result
    const content = result.content as ReadonlyArray<{ readonly type: string; readonly text: string }>
    assert.lengthOf(content, 1, reply.text)
    assert.strictEqual(content[0]!.type, "text")
    return {
      isError: result.isError === true,
      text: JSON.parse(content[0]!.text),
      structured: result.structuredContent
    }
  })

layer(TestServerLive)("what an assistant's model is given", (it) => {
  describe("the tools a connection lists", () => {
    it.effect(
      "a connection allowed to read only lists exactly the tools that change nothing, and a write tool's call is still refused with insufficient_scope",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, mcpUrl } = yield* mcpAddress
          const email = `reader-${Date.now()}@example.com`
          const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
          const { linked } = yield* makeFixtures(accountId)
          const { provider, accessToken } = yield* signInWithSdk({
            mcpUrl,
            browser: makeBrowser(app.baseUrl),
            user: { email, password: PASSWORD },
            access: "read"
          })
          assert.strictEqual(provider.tokens()?.scope, "content:read")
          assert.deepStrictEqual(yield* listedNames(mcpUrl, accessToken), readToolNames)

          const before = yield* storedArticle(linked)
          const refused = yield* postRpc(
            mcpUrl,
            accessToken,
            toolsCall("update_article", { article_id: linked, title: "No" })
          )
          assert.strictEqual(refused.status, 403, refused.text)
          assert.include(refused.headers.get("www-authenticate") ?? "", 'error="insufficient_scope"')
          assert.deepStrictEqual(yield* storedArticle(linked), before)
        })
    )

    it.effect("a connection allowed to read and edit lists every tool its endpoints derive, in their order", () =>
      Effect.gen(function* () {
        yield* startClock
        const user = yield* sharedUser
        assert.deepStrictEqual(
          yield* listedNames(user.mcpUrl, user.token),
          serviceTools.map((tool) => tool.name)
        )
      })
    )

    it.effect("a read-only API key may call the tools a read-only connection lists; a full key, every tool", () =>
      Effect.gen(function* () {
        yield* startClock
        const user = yield* sharedUser
        const keys = yield* ApiKeys
        const credentialOf = (readOnly: boolean) =>
          Effect.gen(function* () {
            const { key } = yield* keys.create({ accountId: user.accountId, name: "tools", isAdmin: false, readOnly })
            return Option.getOrThrow(yield* keys.authenticate(key))
          }).pipe(Effect.orDie)
        const names = (readOnly: boolean) =>
          Effect.map(credentialOf(readOnly), (credential) =>
            toolsFor(serviceTools, credential).map((tool) => tool.name)
          )
        assert.deepStrictEqual(yield* names(true), readToolNames)
        assert.deepStrictEqual(
          yield* names(false),
          serviceTools.map((tool) => tool.name)
        )
      })
    )
  })

  describe("a tool result as text", () => {
    it.effect("a list's, a get's and a write's text content is the same JSON as its structured content", () =>
      Effect.gen(function* () {
        yield* startClock
        const user = yield* sharedUser
        const { site, linked } = yield* makeFixtures(user.accountId)
        const read = (name: string, args: Record<string, unknown>) =>
          Effect.map(resultOf(user.mcpUrl, user.token, name, args), (result) => {
            assert.isFalse(result.isError, JSON.stringify(result.text))
            assert.deepStrictEqual(result.text, result.structured)
            return result.text
          })
        const list = yield* read("list_articles", { site_id: site })
        assert.isAbove(list.data.length, 0)
        assert.strictEqual(list.meta.total, list.data.length)
        const article = yield* read("get_article", { article_id: linked })
        assert.strictEqual(article.data.body, (yield* storedArticle(linked)).body)
        const changed = yield* read("update_article", { article_id: linked, title: "Fixing a leak in winter" })
        assert.strictEqual(changed.data.title, "Fixing a leak in winter")
        assert.strictEqual(changed.data.body, article.data.body)
      })
    )

    it.effect("an error result is isError with no structured content, its text the public error body", () =>
      Effect.gen(function* () {
        yield* startClock
        const user = yield* sharedUser
        const result = yield* resultOf(user.mcpUrl, user.token, "get_article", { article_id: 999_999_999 })
        assert.isTrue(result.isError)
        assert.isUndefined(result.structured)
        assert.strictEqual(result.text.error, "not_found")
        assert.isString(result.text.message)
      })
    )
  })
})
