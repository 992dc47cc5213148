// @tags: runtime
import { randomBytes } from "node:crypto"
import { assert, describe, layer } from "@effect/vitest"
import { Client, type ClientOptions, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, TestClock } from "effect"
import { makeBrowser, signInWithSdk, type TestOAuthProvider } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { toolNames } from "./support/Tools.js"
import { PASSWORD } from "./support/WebPages.js"

/**
 * The revisions of MCP a client may speak: 2026-07-28 (no initialize: `server/discover`, a per-request envelope,
 * Mcp-Method and Mcp-Name headers, cacheable lists) and the 2025 revisions (initialize, then calls), each with the
 * SDK's own client, signed in through the real OAuth flow.
 */

/** What a client sent and got: each POST's headers, JSON body and answer. */
interface Exchange {
  readonly headers: Headers
  readonly body: Record<string, unknown>
  readonly status: number
  readonly answer: string
}

/** A signed-in user with a website, an article and a backlink, and a way to connect a client speaking `options`. */
const setUp = Effect.gen(function* () {
  yield* TestClock.setTime(Date.now())
  const app = yield* TestApp
  const email = `revisions-${randomBytes(4).toString("hex")}@example.com`
  const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
  const site = yield* app.makeSite(accountId, { name: "Plumbing Co" })
  const article = yield* app.makeArticle(site, { title: "Fixing a leak", body: "<p>Drain it first.</p>" })
  yield* app.makeBacklink(site)
  const mcpUrl = `${app.baseUrl}/mcp`
  const { provider } = yield* signInWithSdk({
    mcpUrl,
    browser: makeBrowser(app.baseUrl),
    user: { email, password: PASSWORD }
  })
  return { app, mcpUrl, provider, site, article }
})

/** A client speaking what `options` say, with every exchange it has recorded; closed with the scope. */
const connect = (mcpUrl: string, provider: TestOAuthProvider, options: ClientOptions) =>
  Effect.gen(function* () {
    const exchanges: Array<Exchange> = []
    const recording = async (url: string | URL, init?: RequestInit) => {
      const response = await fetch(url, init)
      if (init?.method === "POST" && typeof init.body === "string") {
        const answer = await response.clone().text()
        exchanges.push({
          headers: new Headers(init.headers),
          body: JSON.parse(init.body) as Record<string, unknown>,
          status: response.status,
          answer
        })
      }
      return response
    }
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "revision-test", version: "1.0.0" }, options)
        await client.connect(
          new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recording })
        )
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
    return { client, exchanges }
  })

/** Lists the tools and calls each one once; every call must succeed. */
const useEveryTool = (client: Client, site: number, article: number) =>
  Effect.promise(async () => {
    const listed = await client.listTools()
    assert.deepStrictEqual(listed.tools.map((tool) => tool.name).sort(), toolNames)
    const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["list_sites", {}],
      ["list_articles", { site_id: site }],
      ["get_article", { article_id: article }],
      ["list_backlinks", { site_id: site }],
      ["get_stats", { site_id: site, period: "2026-10" }],
      ["update_article", { article_id: article, title: `Fixing a leak ${randomBytes(3).toString("hex")}` }],
      ["replace_featured_image", { article_id: article, url: "https://images.example/leak.png" }]
    ]
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args })
      assert.notStrictEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`)
      assert.isObject(result.structuredContent, name)
    }
  })

/** A new user's client speaking what `options` say, having used every tool; its /mcp URL and the exchanges. */
const everyToolUsed = (options: ClientOptions) =>
  Effect.gen(function* () {
    const { mcpUrl, provider, site, article } = yield* setUp
    const { client, exchanges } = yield* connect(mcpUrl, provider, options)
    yield* useEveryTool(client, site, article)
    return { mcpUrl, exchanges }
  })

/** The options of a client pinned to the 2026-07-28 revision. */
const PINNED_2026_07_28: ClientOptions = { versionNegotiation: { mode: { pin: "2026-07-28" } } }

layer(TestServerLive)("MCP revisions", (it) => {
  describe("each revision lists every tool and calls seven of them", () => {
    it.scoped("a 2026-07-28 client: server/discover, no initialize, the standard headers, a cacheable tool list", () =>
      Effect.gen(function* () {
        const { exchanges } = yield* everyToolUsed(PINNED_2026_07_28)
        const methods = exchanges.map((exchange) => exchange.body["method"])
        assert.strictEqual(methods[0], "server/discover")
        assert.notInclude(methods, "initialize")
        for (const exchange of exchanges) {
          assert.strictEqual(exchange.status, 200, exchange.answer)
          assert.strictEqual(exchange.headers.get("mcp-protocol-version"), "2026-07-28")
          assert.strictEqual(exchange.headers.get("mcp-method"), exchange.body["method"])
        }
        const call = exchanges.find((exchange) => exchange.body["method"] === "tools/call")!
        assert.strictEqual(call.headers.get("mcp-name"), (call.body["params"] as { name: string }).name)
        const list = exchanges.find((exchange) => exchange.body["method"] === "tools/list")!
        const listed = JSON.parse(list.answer).result
        assert.strictEqual(listed.ttlMs, 3_600_000)
        assert.strictEqual(listed.cacheScope, "private")
      })
    )

    for (const revision of ["2025-11-25", "2025-06-18"]) {
      it.scoped(`a ${revision} client: initialize, then each call on its own`, () =>
        Effect.gen(function* () {
          const { exchanges } = yield* everyToolUsed({ supportedProtocolVersions: [revision] })
          const initialize = exchanges.find((exchange) => exchange.body["method"] === "initialize")!
          assert.strictEqual(JSON.parse(initialize.answer).result.protocolVersion, revision)
          for (const exchange of exchanges) assert.isBelow(exchange.status, 300, exchange.answer)
        })
      )
    }
  })

  it.scoped("a 2026-07-28 request whose Mcp-Name or Mcp-Method header disagrees with its body is refused", () =>
    Effect.gen(function* () {
      const { mcpUrl, exchanges } = yield* everyToolUsed(PINNED_2026_07_28)
      const call = exchanges.find(
        (exchange) => (exchange.body["params"] as { name?: string } | undefined)?.name === "list_sites"
      )!
      const replay = (headers: Record<string, string>) =>
        Effect.promise(async () => {
          const sent = new Headers(call.headers)
          for (const [name, value] of Object.entries(headers)) sent.set(name, value)
          const response = await fetch(mcpUrl, { method: "POST", headers: sent, body: JSON.stringify(call.body) })
          return { status: response.status, text: await response.text() }
        })
      // The same request as sent is answered.
      assert.strictEqual((yield* replay({})).status, 200)
      for (const headers of [{ "mcp-name": "update_article" }, { "mcp-method": "tools/list" }]) {
        const refused = yield* replay(headers)
        assert.isAtLeast(refused.status, 400, refused.text)
        assert.isBelow(refused.status, 500, refused.text)
        assert.match(JSON.parse(refused.text).error.message, /header|Mcp-/i, refused.text)
      }
    })
  )
})
