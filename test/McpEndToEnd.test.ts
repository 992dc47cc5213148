// @tags: runtime
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { Effect, Option, TestClock } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { Limits } from "../src/Limits/Limits.js"
import { AccessTokens } from "../src/OAuth/AccessTokens.js"
import { clockStarts } from "./support/Clock.js"
import {
  allowInBrowser,
  callToolRaw,
  makeBrowser,
  postRpc,
  REDIRECT_URI,
  signInWithSdk,
  TestOAuthProvider,
  toolsList
} from "./support/McpClient.js"
import { makeFixtures, PARTNER, PROTECTED_BODY, storedArticle } from "./support/McpFixtures.js"
import { connectClient, sdkToolData } from "./support/McpSdkClient.js"
import { mcpAddress, newMcpUser } from "./support/McpSession.js"
import { freshMediaDir, PNG_BASE64 } from "./support/Media.js"
import { TestServerLive } from "./support/TestServer.js"
import { readToolNames, serviceTool, toolNames } from "./support/Tools.js"
import { PASSWORD } from "./support/WebPages.js"

freshMediaDir("cbs-mcp-media-test-")

/** Each test starts a minute past the previous test's start: no two share a request-limit window. */
const startClock = clockStarts("61 seconds")

/** The test's start: the service's public address and a new signed-in user. */
const startedNewUser = Effect.gen(function* () {
  yield* startClock
  return { ...(yield* mcpAddress), session: yield* newMcpUser }
})

const assertListMeta = (
  value: { readonly meta: unknown },
  meta: { page: number; per_page: number; total: number; last_page: number }
) => assert.deepStrictEqual(value.meta, meta)

layer(TestServerLive)("MCP interface", (it) => {
  describe("the SDK client, end to end", () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      it.effect(
        `a client given http://${host}:PORT/mcp (no PUBLIC_BASE_URL) finds the resource named so, signs in and calls a tool`,
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { app } = yield* mcpAddress
            const email = `loopback-${randomBytes(4).toString("hex")}@example.com`
            yield* app.makeAccount({ email, password: PASSWORD })
            const base = `http://${host}:${new URL(app.baseUrl).port}`
            // The SDK checks that the protected resource is the address it was given, as mcp-remote does.
            const { accessToken } = yield* signInWithSdk({
              mcpUrl: `${base}/mcp`,
              browser: makeBrowser(base),
              user: { email, password: PASSWORD }
            })
            const tool = yield* callToolRaw(`${base}/mcp`, accessToken, "list_sites", {})
            assert.isFalse(tool.isError, JSON.stringify(tool.text))
          })
      )
    }

    it.scoped(
      "a first connect is refused with 401; after sign-in and Allow the client connects and lists every annotated tool",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, base, mcpUrl } = yield* mcpAddress
          const accounts = yield* Accounts
          const email = `mcp-${randomBytes(4).toString("hex")}@example.com`
          yield* app.makeAccount({ email, password: PASSWORD })
          const userId = Option.getOrThrow(yield* accounts.findByEmail(email).pipe(Effect.orDie)).user_id
          const provider = new TestOAuthProvider()

          const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })
          const refused = yield* Effect.promise(() =>
            new Client({ name: "mcp-e2e-test", version: "1.0.0" }).connect(first).then(
              () => undefined,
              (error: unknown) => error
            )
          )
          assert.instanceOf(refused, UnauthorizedError)
          // The SDK discovered the metadata, registered itself and sent the user to the authorization page.
          assert.match(String(provider.client?.client_id), /^cbs_client_/)
          assert.lengthOf(provider.authorizationUrls, 1)
          const authorizationUrl = provider.authorizationUrls[0]!
          assert.strictEqual(`${authorizationUrl.origin}${authorizationUrl.pathname}`, `${base}/authorize`)
          assert.strictEqual(authorizationUrl.searchParams.get("state"), provider.stateValue)
          assert.strictEqual(authorizationUrl.searchParams.get("code_challenge_method"), "S256")
          assert.strictEqual(authorizationUrl.searchParams.get("resource"), mcpUrl)
          assert.strictEqual(authorizationUrl.searchParams.get("scope"), "content:read content:write")
          assert.lengthOf(provider.savedTokens, 0)

          const back = yield* allowInBrowser(makeBrowser(app.baseUrl), authorizationUrl, { email, password: PASSWORD })
          assert.isTrue(back.location.startsWith(`${REDIRECT_URI}?`), back.location)
          assert.strictEqual(back.params.get("state"), authorizationUrl.searchParams.get("state"))
          assert.strictEqual(back.params.get("iss"), base)
          const code = back.params.get("code")
          assert.match(code ?? "", /^cbs_ac_/)
          // The whole callback query: the SDK checks its iss (RFC 9207) before it redeems the code.
          yield* Effect.promise(() => first.finishAuth(back.params))
          assert.lengthOf(provider.savedTokens, 1)
          assert.match(provider.tokens()!.access_token, /^cbs_at_/)
          assert.match(provider.tokens()!.refresh_token ?? "", /^cbs_rt_/)
          yield* Effect.promise(() => first.close())

          const client = yield* connectClient(provider)
          assert.strictEqual(client.getServerVersion()?.name, "content-backlink-service")
          const { tools } = yield* Effect.promise(() => client.listTools())
          assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), toolNames)
          for (const tool of tools) {
            assert.isString(tool.title, tool.name)
            assert.isNotEmpty(tool.title, tool.name)
            assert.isNotEmpty(tool.description ?? "", tool.name)
            assert.strictEqual(tool.inputSchema.type, "object", tool.name)
            assert.isObject(tool.inputSchema.properties, tool.name)
            assert.strictEqual(tool.outputSchema?.type, "object", tool.name)
            assert.isObject(tool.outputSchema?.properties, tool.name)
            const annotations = tool.annotations ?? {}
            assert.deepStrictEqual(annotations, serviceTool(tool.name).annotations, tool.name)
            if (readToolNames.includes(tool.name)) {
              assert.strictEqual(annotations.readOnlyHint, true, tool.name)
            } else {
              assert.strictEqual(annotations.readOnlyHint, false, tool.name)
              assert.strictEqual(annotations.destructiveHint, false, tool.name)
              assert.strictEqual(annotations.openWorldHint, false, tool.name)
            }
          }
          const getArticle = tools.find((tool) => tool.name === "get_article")!
          assert.deepStrictEqual(getArticle.inputSchema.required, ["article_id"])
          const update = tools.find((tool) => tool.name === "update_article")!
          assert.includeMembers(Object.keys(update.inputSchema.properties ?? {}), [
            "article_id",
            "title",
            "body",
            "meta_description",
            "replacements",
            "reason"
          ])
          // The token stands for the user who allowed it.
          const window = yield* Effect.flatMap(Limits, (limits) => limits.currentWindow)
          const found = yield* Effect.flatMap(AccessTokens, (tokens) =>
            tokens.verifyCounting(provider.tokens()!.access_token, window)
          )
          assert.strictEqual(Option.getOrUndefined(found)?.credential.id, userId)
        })
    )

    it.scoped(
      "every tool answers with structured content equal to its text; edits are stored as MCP revisions by the user",
      () =>
        Effect.gen(function* () {
          const { base, session } = yield* startedNewUser
          const { site, linked, later, draft } = yield* makeFixtures(session.accountId)
          const client = yield* connectClient(session.provider)

          const sites = yield* sdkToolData(client, "list_sites", {})
          assert.deepStrictEqual(
            sites.data.map((s: { id: number }) => s.id),
            [site]
          )
          assert.strictEqual(sites.data[0].name, "Plumbing Co")
          assertListMeta(sites, { page: 1, per_page: 20, total: 1, last_page: 1 })

          const articles = yield* sdkToolData(client, "list_articles", { site_id: site })
          assert.deepStrictEqual(
            articles.data.map((a: { id: number }) => a.id),
            [later, linked, draft]
          )
          assertListMeta(articles, { page: 1, per_page: 20, total: 3, last_page: 1 })
          const published = yield* sdkToolData(client, "list_articles", {
            site_id: site,
            status: "published",
            per_page: 1,
            page: 2
          })
          assert.deepStrictEqual(
            published.data.map((a: { id: number }) => a.id),
            [linked]
          )
          assertListMeta(published, { page: 2, per_page: 1, total: 2, last_page: 2 })

          const article = yield* sdkToolData(client, "get_article", { article_id: linked })
          assert.strictEqual(article.data.id, linked)
          assert.strictEqual(article.data.title, "Fixing a leak")
          assert.strictEqual(article.data.body, PROTECTED_BODY)
          assert.deepStrictEqual(article.data.protected_links, [PARTNER])
          assert.strictEqual(article.data.meta_description, "How to fix a leak.")

          const backlinks = yield* sdkToolData(client, "list_backlinks", { site_id: site, from: "2026-10-01" })
          assert.deepStrictEqual(
            backlinks.data.map((b: { acquired_at: string }) => b.acquired_at),
            ["2026-10-04T00:00:00Z", "2026-10-02T00:00:00Z"]
          )
          assertListMeta(backlinks, { page: 1, per_page: 20, total: 2, last_page: 1 })

          const stats = yield* sdkToolData(client, "get_stats", { site_id: site, period: "2026-10" })
          assert.deepStrictEqual(stats.data, {
            site_id: site,
            from: "2026-10-01",
            to: "2026-10-31",
            articles_published: 2,
            backlinks_acquired: 2,
            backlinks_industry: 1,
            backlinks_local: 1,
            // Live and lost now, whenever acquired: the fixture's three backlinks are live.
            backlinks_live: 3,
            backlinks_lost: 0
          })

          const rewritten = yield* sdkToolData(client, "update_article", {
            article_id: later,
            title: "Choosing a boiler in 2026",
            body: "<p>Rewritten by the assistant.</p>",
            reason: "full rewrite"
          })
          assert.strictEqual(rewritten.data.body, "<p>Rewritten by the assistant.</p>")
          assert.strictEqual(rewritten.data.title, "Choosing a boiler in 2026")
          assert.strictEqual(rewritten.data.word_count, 4)

          const patched = yield* sdkToolData(client, "update_article", {
            article_id: linked,
            replacements: [{ find: "Read about", replace: "Learn about" }],
            reason: "wording"
          })
          const patchedBody = PROTECTED_BODY.replace("Read about", "Learn about")
          assert.strictEqual(patched.data.body, patchedBody)
          assert.deepStrictEqual(patched.data.protected_links, [PARTNER])
          assert.strictEqual((yield* storedArticle(linked)).body, patchedBody)

          const byUrl = yield* sdkToolData(client, "replace_featured_image", {
            article_id: linked,
            url: "https://cdn.example.com/leak.jpg",
            reason: "new cover"
          })
          assert.strictEqual(byUrl.data.id, linked)
          assert.strictEqual(byUrl.data.featured_image_url, "https://cdn.example.com/leak.jpg")
          assert.isUndefined(byUrl.data.body)

          const uploaded = yield* sdkToolData(client, "replace_featured_image", {
            article_id: later,
            image: PNG_BASE64
          })
          const imageUrl: string = uploaded.data.featured_image_url
          assert.isTrue(imageUrl.startsWith(`${base}/media/`), imageUrl)
          const served = yield* Effect.promise(async () => {
            const res = await fetch(imageUrl)
            return { status: res.status, type: res.headers.get("content-type"), bytes: await res.arrayBuffer() }
          })
          assert.strictEqual(served.status, 200)
          assert.strictEqual(served.type, "image/png")
          assert.deepStrictEqual(Buffer.from(served.bytes), Buffer.from(PNG_BASE64, "base64"))

          const sql = yield* SqlClient.SqlClient
          const revisions = yield* sql<{
            article_id: number
            number: number
            origin: string
            reason: string | null
            user_id: number | null
            api_key_id: number | null
            title: string | null
            body: string
            featured_image_url: string | null
          }>`select article_id, number, origin, reason, user_id, api_key_id, title, body, featured_image_url
             from article_revisions where article_id in (${linked}, ${later}) order by article_id, number`.pipe(
            Effect.orDie
          )
          assert.deepStrictEqual(
            revisions.map((r) => [r.article_id, r.number, r.origin, r.reason, r.user_id, r.api_key_id]),
            [
              [linked, 1, "MCP", "wording", session.userId, null],
              [linked, 2, "MCP", "new cover", session.userId, null],
              [later, 1, "MCP", "full rewrite", session.userId, null],
              [later, 2, "MCP", null, session.userId, null]
            ]
          )
          assert.strictEqual(revisions[0]!.body, patchedBody)
          assert.strictEqual(revisions[1]!.featured_image_url, "https://cdn.example.com/leak.jpg")
          assert.strictEqual(revisions[2]!.title, "Choosing a boiler in 2026")
          assert.strictEqual(revisions[3]!.featured_image_url, imageUrl)
        })
    )

    it.scoped(
      "once the access token has expired, the next call succeeds through a silent refresh with new tokens",
      () =>
        Effect.gen(function* () {
          const { app, mcpUrl, session } = yield* startedNewUser
          const site = yield* app.makeSite(session.accountId)
          const client = yield* connectClient(session.provider)
          assert.strictEqual((yield* sdkToolData(client, "list_sites", {})).data[0].id, site)
          const issued = session.provider.savedTokens.length
          const expired = session.provider.tokens()!

          yield* TestClock.adjust("3601 seconds")
          // The old token is really refused now, so the call below can only succeed by refreshing.
          const refused = yield* postRpc(mcpUrl, expired.access_token, toolsList)
          assert.strictEqual(refused.status, 401)
          assert.include(refused.headers.get("www-authenticate") ?? "", 'error="invalid_token"')

          const sites = yield* sdkToolData(client, "list_sites", {})
          assert.strictEqual(sites.data[0].id, site)
          assert.lengthOf(session.provider.savedTokens, issued + 1)
          const renewed = session.provider.tokens()!
          assert.match(renewed.access_token, /^cbs_at_/)
          assert.notStrictEqual(renewed.access_token, expired.access_token)
          assert.notStrictEqual(renewed.refresh_token, expired.refresh_token)
          const accepted = yield* postRpc(mcpUrl, renewed.access_token, toolsList)
          assert.strictEqual(accepted.status, 200, accepted.text)
        })
    )
  })
})
