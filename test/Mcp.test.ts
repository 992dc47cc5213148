// @tags: runtime
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, assert, describe, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { Clock, Effect, Option, TestClock } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import type { AccountId, ArticleId } from "../src/Domain/Ids.js"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { Limits } from "../src/Limits/Limits.js"
import { AccessTokens } from "../src/OAuth/AccessTokens.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import {
  allowInBrowser,
  callToolRaw,
  makeBrowser,
  postRpc,
  postWithHost,
  REDIRECT_URI,
  signInWithSdk,
  TestOAuthProvider,
  toolsList
} from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

// Uploaded featured images go to a fresh directory of this run, not into the repository; read when the layer is built.
const mediaDir = mkdtempSync(join(tmpdir(), "cbs-mcp-media-test-"))
process.env["MEDIA_DIR"] = mediaDir
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }))

const PASSWORD = "correct horse battery staple"
const READ_TOOLS = ["get_article", "get_stats", "list_articles", "list_backlinks", "list_sites"]
const EDIT_TOOLS = ["replace_featured_image", "update_article"]
const EDITS_PER_DAY = 200

/** A real, valid 1×1 PNG. */
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const PARTNER = { type: "backlink", href: "https://partner.example/", text: "our partner" }
const PROTECTED_BODY = `<p>Read about <a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a> today.</p>`

/**
 * The test's "now". Under `layer(...)` the server runs on the test clock, which starts at the epoch and stands
 * still; each test starts at the real time and at least a minute after the previous test's start, so that no two
 * tests share a request-limit window (the shared session's token counts in every test that uses it).
 */
let lastStart = 0
const startClock = Effect.suspend(() => {
  lastStart = Math.max(Date.now(), lastStart + 61_000)
  return TestClock.setTime(lastStart)
})

/** The test server has no PUBLIC_BASE_URL, so its public address (the OAuth issuer) is http://localhost:<port>. */
const context = Effect.gen(function* () {
  const app = yield* TestApp
  const base = `http://localhost:${new URL(app.baseUrl).port}`
  return { app, base, mcpUrl: `${base}/mcp` }
})

interface Session {
  readonly email: string
  readonly accountId: AccountId
  readonly userId: number
  /** An API key of the same account, for the REST side of the parity tests. */
  readonly key: string
  readonly provider: TestOAuthProvider
  readonly token: string
}

/** A new account whose user has signed in for MCP (discovery, registration, sign-in, Allow, token exchange). */
const newSession = Effect.gen(function* () {
  const { app, mcpUrl } = yield* context
  const accounts = yield* Accounts
  const email = `mcp-${randomBytes(4).toString("hex")}@example.com`
  const { accountId, key } = yield* app.makeAccount({ email, password: PASSWORD })
  const row = Option.getOrThrow(yield* accounts.findByEmail(email).pipe(Effect.orDie))
  const { provider, accessToken } = yield* signInWithSdk({
    mcpUrl,
    browser: makeBrowser(app.baseUrl),
    user: { email, password: PASSWORD }
  })
  return { email, accountId, userId: row.user_id, key, provider, token: accessToken } satisfies Session
})

/**
 * One signed-in user for the whole file, for the tests that change nothing account-wide (the browser dance is
 * done once). Tests that use up the edit quota, fill the request window or count audit rows get their own. Each
 * test's clock is a minute past the previous one's, so the session is renewed before its token can expire.
 */
let shared: { readonly session: Session; readonly issuedAt: number } | undefined
const sharedSession = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  if (shared === undefined || now - shared.issuedAt > 30 * 60_000) {
    shared = { session: yield* newSession, issuedAt: now }
  }
  return shared.session
})

/** A tool call over raw JSON-RPC with the session's token. */
const callTool = (session: Session, name: string, args: Record<string, unknown>) =>
  Effect.flatMap(context, ({ mcpUrl }) => callToolRaw(mcpUrl, session.token, name, args))

/** A tool call that must succeed; its structured content, which must equal its text. */
const toolData = (session: Session, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* callTool(session, name, args)
    assert.isFalse(reply.isError, JSON.stringify(reply.text))
    assert.deepStrictEqual(reply.structured, reply.text)
    return reply.text
  })

/** A tool call that must fail; its error body (the text of the isError result). */
const toolError = (session: Session, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* callTool(session, name, args)
    assert.isTrue(reply.isError, `expected a tool error, got ${JSON.stringify(reply.text)}`)
    assert.isUndefined(reply.structured)
    assert.isString(reply.text.message)
    return reply.text
  })

/** A GET of the REST API with an API key; status and JSON body. */
const rest = (key: string, path: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch(`/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } })
    const body = yield* Effect.promise(() => res.json())
    return { status: res.status, body }
  })

/** A website with two published articles (one with a protected link), a draft, and three backlinks. */
const makeFixtures = (accountId: AccountId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const site = yield* app.makeSite(accountId, {
      name: "Plumbing Co",
      language: "en",
      country: "GB",
      geographic_scope: "national",
      industry: "Plumbing"
    })
    const linked = yield* app.makeArticle(site, {
      title: "Fixing a leak",
      published_at: "2026-10-01T08:00:00Z",
      target_keyword: "leak",
      meta_description: "How to fix a leak.",
      body: PROTECTED_BODY,
      word_count: 5
    })
    const later = yield* app.makeArticle(site, {
      title: "Choosing a boiler",
      published_at: "2026-10-05T09:30:00Z",
      body: "<p>Some text about boilers.</p>",
      word_count: 4
    })
    const draft = yield* app.makeArticle(site, { title: "Draft", status: "draft", published_at: null })
    yield* app.makeBacklink(site, { acquired_at: "2026-10-02T00:00:00Z", category: "industry" })
    yield* app.makeBacklink(site, { acquired_at: "2026-10-04T00:00:00Z", category: "local" })
    yield* app.makeBacklink(site, { acquired_at: "2026-09-20T00:00:00Z", category: "industry" })
    return { site, linked, later, draft }
  })

/** A website of another account with one article. */
const foreignArticle = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId } = yield* app.makeAccount()
  const site = yield* app.makeSite(accountId)
  const article = yield* app.makeArticle(site, { title: "Not yours", body: "<p>Private.</p>" })
  return { site, article }
})

const storedArticle = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ title: string | null; body: string; revision: number }>`
      select title, body, revision from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!
  })

/** The SDK's Client connected over Streamable HTTP with the provider's tokens; closed with the scope. */
const connectClient = (provider: TestOAuthProvider) =>
  Effect.gen(function* () {
    const { mcpUrl } = yield* context
    return yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "mcp-e2e-test", version: "1.0.0" })
        await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  })

/** A callTool through the SDK client that must succeed; its structured content, which must equal its text. */
const sdkToolData = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const result = yield* Effect.promise(() => client.callTool({ name, arguments: args }))
    const content = result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>
    assert.notStrictEqual(result.isError, true, content[0]?.text)
    assert.strictEqual(content.length, 1)
    assert.strictEqual(content[0]!.type, "text")
    const text = JSON.parse(content[0]!.text!)
    assert.deepStrictEqual(result.structuredContent, text)
    return text
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
            const { app } = yield* context
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

    it.effect(
      "a first connect is refused with 401; after sign-in and Allow the client connects and lists the seven annotated tools",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, base, mcpUrl } = yield* context
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
          assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS, ...EDIT_TOOLS].sort())
          for (const tool of tools) {
            assert.isString(tool.title, tool.name)
            assert.isNotEmpty(tool.title, tool.name)
            assert.isNotEmpty(tool.description ?? "", tool.name)
            assert.strictEqual(tool.inputSchema.type, "object", tool.name)
            assert.isObject(tool.inputSchema.properties, tool.name)
            assert.strictEqual(tool.outputSchema?.type, "object", tool.name)
            assert.isObject(tool.outputSchema?.properties, tool.name)
            const annotations = tool.annotations ?? {}
            if (READ_TOOLS.includes(tool.name)) {
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
        }).pipe(Effect.scoped)
    )

    it.effect(
      "every tool answers with structured content equal to its text; edits are stored as MCP revisions by the user",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { base } = yield* context
          const session = yield* newSession
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
            backlinks_local: 1
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
        }).pipe(Effect.scoped)
    )

    it.effect(
      "once the access token has expired, the next call succeeds through a silent refresh with new tokens",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { mcpUrl } = yield* context
          const session = yield* newSession
          const app = yield* TestApp
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
        }).pipe(Effect.scoped)
    )
  })

  describe("authentication and transport", () => {
    it.effect("without a token /mcp answers 401 with WWW-Authenticate naming the resource metadata and the scope", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, base, mcpUrl } = yield* context
        const reply = yield* postRpc(mcpUrl, undefined, toolsList)
        assert.strictEqual(reply.status, 401)
        const challenge = reply.headers.get("www-authenticate") ?? ""
        assert.match(challenge, /^Bearer /)
        assert.include(challenge, `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`)
        assert.include(challenge, 'scope="content:read content:write"')
        assert.notInclude(challenge, "error=")
        assert.strictEqual(JSON.parse(reply.text).error, "unauthorized")
        // The document it points to names this endpoint.
        const metadata = yield* Effect.promise(() => fetch(`${base}/.well-known/oauth-protected-resource/mcp`))
        assert.strictEqual((yield* Effect.promise(() => metadata.json())).resource, mcpUrl)
        // Without PUBLIC_BASE_URL, at 127.0.0.1 (another loopback name) the challenge and the documents name that.
        const direct = yield* postRpc(`${app.baseUrl}/mcp`, undefined, toolsList)
        assert.include(
          direct.headers.get("www-authenticate") ?? "",
          `resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource/mcp"`
        )
        const there = yield* app.fetch("/.well-known/oauth-protected-resource/mcp")
        const document = yield* Effect.promise(() => there.json())
        assert.strictEqual(document.resource, `${app.baseUrl}/mcp`)
        assert.deepStrictEqual(document.authorization_servers, [app.baseUrl])
        // And at [::1], the third loopback name; any other Host gets the default (localhost).
        const port = new URL(app.baseUrl).port
        for (const [host, named] of [
          [`[::1]:${port}`, `http://[::1]:${port}`],
          [`cbs.example.com:${port}`, base]
        ] as const) {
          const reply = yield* postWithHost(`${app.baseUrl}/mcp`, host, "not-a-token", toolsList)
          assert.include(
            reply.headers.get("www-authenticate") ?? "",
            `resource_metadata="${named}/.well-known/oauth-protected-resource/mcp"`,
            host
          )
        }
      })
    )

    it.effect('an unknown token, a malformed one or an API key is 401 with error="invalid_token"', () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* context
        const session = yield* sharedSession
        for (const token of ["cbs_at_unknown", "not-a-token", session.key, `${session.token}x`]) {
          const reply = yield* postRpc(mcpUrl, token, toolsList)
          assert.strictEqual(reply.status, 401, token)
          assert.include(reply.headers.get("www-authenticate") ?? "", 'error="invalid_token"', token)
          assert.strictEqual(JSON.parse(reply.text).error, "unauthorized")
        }
        assert.strictEqual((yield* postRpc(mcpUrl, session.token, toolsList)).status, 200)
      })
    )

    it.effect("an access token in the query string is not accepted, only in the Authorization header", () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* context
        const session = yield* sharedSession
        const inQuery = yield* postRpc(
          `${mcpUrl}?access_token=${encodeURIComponent(session.token)}`,
          undefined,
          toolsList
        )
        assert.strictEqual(inQuery.status, 401)
        assert.include(inQuery.headers.get("www-authenticate") ?? "", "resource_metadata=")
        const inHeader = yield* postRpc(mcpUrl, session.token, toolsList)
        assert.strictEqual(inHeader.status, 200, inHeader.text)
      })
    )

    it.effect("GET and DELETE /mcp answer 405: the endpoint is stateless and takes POST only", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app } = yield* context
        const session = yield* sharedSession
        for (const method of ["GET", "DELETE"]) {
          const res = yield* app.fetch("/mcp", {
            method,
            headers: { authorization: `Bearer ${session.token}`, accept: "text/event-stream" }
          })
          assert.strictEqual(res.status, 405, method)
          assert.include(res.headers.get("allow") ?? "", "POST", method)
          yield* Effect.promise(() => res.body?.cancel() ?? Promise.resolve())
        }
      })
    )

    it.effect("a request naming another host or a foreign origin is refused (DNS-rebinding protection)", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, base } = yield* context
        const session = yield* sharedSession
        const port = new URL(app.baseUrl).port
        const url = `${app.baseUrl}/mcp`
        const rebound = yield* postWithHost(url, `evil.example:${port}`, session.token, toolsList)
        assert.isAtLeast(rebound.status, 400, rebound.text)
        assert.isBelow(rebound.status, 500, rebound.text)
        assert.notStrictEqual(rebound.status, 401)
        const foreignOrigin = yield* postRpc(url, session.token, toolsList, { origin: "https://evil.example" })
        assert.isAtLeast(foreignOrigin.status, 400, foreignOrigin.text)
        assert.isBelow(foreignOrigin.status, 500, foreignOrigin.text)
        // The service's own names are accepted.
        assert.strictEqual((yield* postWithHost(url, `localhost:${port}`, session.token, toolsList)).status, 200)
        assert.strictEqual((yield* postRpc(url, session.token, toolsList, { origin: base })).status, 200)
      })
    )

    it.effect("a tools/call needs no initialize first: each POST stands alone", () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* context
        const session = yield* sharedSession
        const reply = yield* postRpc(mcpUrl, session.token, toolsList)
        assert.strictEqual(reply.status, 200, reply.text)
        assert.isNull(reply.headers.get("mcp-session-id"))
        const names = JSON.parse(reply.text).result.tools.map((tool: { name: string }) => tool.name)
        assert.deepStrictEqual(names.sort(), [...READ_TOOLS, ...EDIT_TOOLS].sort())
      })
    )

    it.effect("requests whose params the SDK's schema refuses are -32602 Invalid params, never -32603", () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* context
        const session = yield* sharedSession
        const refused = [
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } },
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_sites", arguments: "all" } },
          { jsonrpc: "2.0", id: 3, method: "tools/list", params: { cursor: 5 } },
          { jsonrpc: "2.0", id: 4, method: "initialize", params: { protocolVersion: 7 } }
        ]
        for (const message of refused) {
          const reply = yield* postRpc(mcpUrl, session.token, message)
          assert.strictEqual(reply.status, 200, reply.text)
          const answer = JSON.parse(reply.text)
          assert.strictEqual(answer.id, message.id, reply.text)
          assert.strictEqual(answer.error?.code, -32602, reply.text)
        }
        // In a batch, the valid request is still answered.
        const batch = yield* postRpc(mcpUrl, session.token, [refused[2], { ...toolsList, id: 9 }])
        assert.strictEqual(batch.status, 200, batch.text)
        const answers = JSON.parse(batch.text) as ReadonlyArray<{ id: number; error?: { code: number } }>
        assert.strictEqual(answers.find((answer) => answer.id === 3)?.error?.code, -32602, batch.text)
        assert.isUndefined(answers.find((answer) => answer.id === 9)?.error, batch.text)
      })
    )

    it.effect("the 61st request within a minute with one user's token is 429 rate_limited with limit 60", () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* context
        const session = yield* newSession
        const sql = yield* SqlClient.SqlClient
        const expectAllowed = (i: number) =>
          Effect.gen(function* () {
            const reply = yield* postRpc(mcpUrl, session.token, toolsList)
            assert.strictEqual(reply.status, 200, `request ${i}: ${reply.text}`)
            assert.strictEqual(reply.headers.get("ratelimit-limit"), "60")
            assert.strictEqual(reply.headers.get("ratelimit-remaining"), String(60 - i))
          })
        yield* expectAllowed(1)
        yield* expectAllowed(2)
        // Requests 3 to 58, counted where the service counts them: the window's row of the user's token.
        const counted = yield* sql`update request_counters set count = 58
          where credential = ${`user:${session.userId}`} returning count`.pipe(Effect.orDie)
        assert.lengthOf(counted, 1)
        yield* expectAllowed(59)
        yield* expectAllowed(60)
        const limited = yield* postRpc(mcpUrl, session.token, toolsList)
        assert.strictEqual(limited.status, 429, limited.text)
        const body = JSON.parse(limited.text)
        assert.strictEqual(body.error, "rate_limited")
        assert.strictEqual(body.limit, 60)
        assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/)
        yield* TestClock.adjust("1 minute")
        assert.strictEqual((yield* postRpc(mcpUrl, session.token, toolsList)).status, 200)
      })
    )
  })

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
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const site = yield* app.makeSite(session.accountId)
          const id = yield* app.makeArticle(site, { body: PROTECTED_BODY })
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
          assert.strictEqual((yield* storedArticle(id)).revision, 0)
        })
    )

    it.effect("update_article with body together with replacements or meta_description is a validation_error", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const site = yield* app.makeSite(session.accountId)
        const id = yield* app.makeArticle(site, { body: "<p>red fish</p>" })
        for (const extra of [{ replacements: [{ find: "red", replace: "blue" }] }, { meta_description: "A fish." }]) {
          const body = yield* toolError(session, "update_article", {
            article_id: id,
            body: "<p>blue fish</p>",
            ...extra
          })
          assert.strictEqual(body.error, "validation_error", JSON.stringify(extra))
        }
        const stored = yield* storedArticle(id)
        assert.strictEqual(stored.body, "<p>red fish</p>")
        assert.strictEqual(stored.revision, 0)
      })
    )

    it.effect("update_article over the body's bounds (characters, elements) is validation_error with limit", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const site = yield* app.makeSite(session.accountId)
        const id = yield* app.makeArticle(site, { body: "<p>red fish</p>" })
        for (const [body, limit] of [
          [`<p>${"x".repeat(MAX_BODY_CHARACTERS)}</p>`, MAX_BODY_CHARACTERS],
          ["<p>x".repeat(MAX_BODY_ELEMENTS + 1), MAX_BODY_ELEMENTS]
        ] as const) {
          const refused = yield* toolError(session, "update_article", { article_id: id, body })
          assert.strictEqual(refused.error, "validation_error")
          assert.strictEqual(refused.limit, limit)
          assert.include(refused.message, "body")
        }
        const stored = yield* storedArticle(id)
        assert.strictEqual(stored.body, "<p>red fish</p>")
        assert.strictEqual(stored.revision, 0)
      })
    )

    it.effect("update_article with a find that occurs twice is replacement_conflict and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const site = yield* app.makeSite(session.accountId)
        const id = yield* app.makeArticle(site, { title: "Fish", body: "<p>red fish, red fish</p>" })
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
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const site = yield* app.makeSite(session.accountId)
        const article = yield* app.makeArticle(site, { title: "Kept", body: "<p>Kept.</p>" })
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
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const site = yield* app.makeSite(session.accountId)
          const id = yield* app.makeArticle(site, { title: "Bounded" })
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
          yield* startClock
          const session = yield* newSession
          const app = yield* TestApp
          const sql = yield* SqlClient.SqlClient
          const site = yield* app.makeSite(session.accountId)
          const id = yield* app.makeArticle(site, { title: "Quota", body: "<p>red fish</p>" })
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
        yield* startClock
        const session = yield* newSession
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

  describe("parity with the REST API", () => {
    type Fixtures = Effect.Effect.Success<ReturnType<typeof makeFixtures>>
    const cases: ReadonlyArray<{
      readonly name: string
      readonly tool: string
      readonly request: (fixtures: Fixtures) => { readonly path: string; readonly args: Record<string, unknown> }
    }> = [
      { name: "list_sites", tool: "list_sites", request: () => ({ path: "/sites", args: {} }) },
      {
        name: "list_sites, second page of one",
        tool: "list_sites",
        request: () => ({ path: "/sites?per_page=1&page=2", args: { per_page: 1, page: 2 } })
      },
      {
        name: "list_articles",
        tool: "list_articles",
        request: ({ site }) => ({ path: `/sites/${site}/articles`, args: { site_id: site } })
      },
      {
        name: "list_articles filtered by status and dates, one per page",
        tool: "list_articles",
        request: ({ site }) => ({
          path: `/sites/${site}/articles?status=published&from=2026-10-01&to=2026-10-31&per_page=1`,
          args: { site_id: site, status: "published", from: "2026-10-01", to: "2026-10-31", per_page: 1 }
        })
      },
      {
        name: "get_article",
        tool: "get_article",
        request: ({ linked }) => ({ path: `/articles/${linked}`, args: { article_id: linked } })
      },
      {
        name: "list_backlinks",
        tool: "list_backlinks",
        request: ({ site }) => ({ path: `/sites/${site}/backlinks`, args: { site_id: site } })
      },
      {
        name: "list_backlinks from a date",
        tool: "list_backlinks",
        request: ({ site }) => ({
          path: `/sites/${site}/backlinks?from=2026-10-03&page=1&per_page=5`,
          args: { site_id: site, from: "2026-10-03", page: 1, per_page: 5 }
        })
      },
      {
        name: "get_stats for the default period",
        tool: "get_stats",
        request: ({ site }) => ({ path: `/sites/${site}/stats`, args: { site_id: site } })
      },
      {
        name: "get_stats for a month",
        tool: "get_stats",
        request: ({ site }) => ({
          path: `/sites/${site}/stats?period=2026-10`,
          args: { site_id: site, period: "2026-10" }
        })
      },
      {
        name: "get_stats from/to",
        tool: "get_stats",
        request: ({ site }) => ({
          path: `/sites/${site}/stats?from=2026-09-15&to=2026-10-02`,
          args: { site_id: site, from: "2026-09-15", to: "2026-10-02" }
        })
      }
    ]

    for (const { name, tool, request } of cases) {
      it.effect(`${name}: the tool's structured content deep-equals the REST endpoint's JSON`, () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const fixtures = yield* makeFixtures(session.accountId)
          const key = yield* app.makeKey(session.accountId)
          const { path, args } = request(fixtures)
          const viaRest = yield* rest(key, path)
          assert.strictEqual(viaRest.status, 200, JSON.stringify(viaRest.body))
          const viaMcp = yield* toolData(session, tool, args)
          assert.deepStrictEqual(viaMcp, viaRest.body)
          yield* readRowsWritten
          // The two calls are logged alike: same status and article, each with its own door.
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ origin: string; tool: string | null; status: number; article_id: number | null }>`
            select origin, tool, status, article_id from audit_log
            where account_id = ${session.accountId} order by id desc limit 2`.pipe(Effect.orDie)
          assert.deepStrictEqual(rows[0], {
            origin: "MCP",
            tool,
            status: 200,
            article_id: rows[1]!.article_id
          })
          assert.strictEqual(rows[1]!.origin, "API")
          // Something real was compared.
          const data = viaRest.body.data
          assert.isTrue(Array.isArray(data) ? data.length > 0 : typeof data === "object" && data !== null)
        })
      )
    }

    it.effect(
      "an error is the same error through REST and MCP: missing article, another account's site, bad paging",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const key = yield* app.makeKey(session.accountId)
          const { site: foreignSite } = yield* foreignArticle
          const own = yield* app.makeSite(session.accountId)
          const cases: ReadonlyArray<readonly [string, string, Record<string, unknown>, number]> = [
            ["get_article", "/articles/999999999", { article_id: 999_999_999 }, 404],
            ["list_articles", `/sites/${foreignSite}/articles`, { site_id: foreignSite }, 404],
            ["get_stats", `/sites/${foreignSite}/stats`, { site_id: foreignSite }, 404],
            ["list_backlinks", `/sites/${own}/backlinks?per_page=101`, { site_id: own, per_page: 101 }, 422]
          ]
          for (const [tool, path, args, status] of cases) {
            const viaRest = yield* rest(key, path)
            assert.strictEqual(viaRest.status, status, path)
            const viaMcp = yield* toolError(session, tool, args)
            assert.strictEqual(viaMcp.error, viaRest.body.error, tool)
            assert.strictEqual(viaMcp.limit, viaRest.body.limit, `${tool}: limit`)
          }
        })
    )
  })

  describe("one definition, every door", () => {
    /** A write through REST with an API key: status and JSON body. */
    const restWrite = (key: string, method: string, path: string, body: unknown) =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const res = yield* app.fetch(`/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        return { status: res.status, body: yield* Effect.promise(() => res.json()) }
      })

    /** The call-log rows and revisions of an article, oldest first, without ids, times and who. */
    const storyOf = (articleId: ArticleId) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const calls = yield* sql<{ origin: string; method: string | null; tool: string | null; status: number }>`
          select origin, method, tool, status from audit_log where article_id = ${articleId} order by id`.pipe(
          Effect.orDie
        )
        const revisions = yield* sql<{ number: number; origin: string; reason: string | null; title: string | null }>`
          select number, origin, reason, title from article_revisions where article_id = ${articleId}
          order by number`.pipe(Effect.orDie)
        return { calls, revisions }
      })

    // The list an assistant reads into its context stays short: 15,000 characters (it was 12,000 until nullable
    // output fields were written as anyOf a type and null, which clients of single-type dialects can read; 13,000
    // until get_stats took `months`, whose series its output shows, and three tools named their MCP Apps card; 14,000
    // until titles, reasons and meta descriptions showed the pattern of one line of text).
    it.effect(
      "tools/list has no schema titles, no HTTP wording, each tool within 4,000 characters, the list under 15,000",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const { mcpUrl } = yield* context
          const reply = yield* postRpc(mcpUrl, session.token, toolsList)
          assert.strictEqual(reply.status, 200)
          assert.isBelow(reply.text.length, 15_000)
          const tools = JSON.parse(reply.text).result.tools as ReadonlyArray<Record<string, unknown>>
          assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS, ...EDIT_TOOLS].sort())
          // Each tool's own entry is budgeted too (CONTRACT.md, "What a tool list costs an assistant").
          for (const tool of tools) assert.isAtMost(JSON.stringify(tool).length, 4_000, String(tool.name))
          const text = JSON.stringify(tools)
          for (const label of [
            "positive",
            "int",
            "nonNegative",
            "maxLength(",
            "minLength(",
            "itemsCount(",
            "maxItems("
          ]) {
            assert.notInclude(text, `"title":"${label}`, label)
          }
          for (const wording of [
            /multipart/i,
            /form-data/i,
            /\bheader/i,
            /\bHTTP\b/,
            /\b(GET|PUT|PATCH|POST)\b/,
            /\b[45]\d\d [a-z]+_[a-z_]+/,
            /API key/i,
            /key's/,
            /origin API/
          ]) {
            assert.notMatch(text, wording, String(wording))
          }
        })
    )

    it.effect("each tool's input schema holds its endpoint's path, query and payload parameters", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { mcpUrl } = yield* context
        const reply = yield* postRpc(mcpUrl, session.token, toolsList)
        const tools = JSON.parse(reply.text).result.tools as ReadonlyArray<{
          readonly name: string
          readonly inputSchema: { readonly properties: Record<string, unknown>; readonly required?: Array<string> }
          readonly outputSchema: { readonly properties: Record<string, unknown> }
        }>
        const byName = new Map(tools.map((tool) => [tool.name, tool]))
        const expected: Record<string, ReadonlyArray<string>> = {
          list_sites: ["account", "website", "page", "per_page"],
          list_articles: ["site_id", "from", "to", "status", "page", "per_page"],
          get_article: ["article_id"],
          list_backlinks: ["site_id", "from", "to", "page", "per_page"],
          get_stats: ["site_id", "period", "from", "to", "months"],
          update_article: [
            "article_id",
            "title",
            "body",
            "meta_description",
            "replacements",
            "reason",
            "dry_run",
            "if_match",
            "idempotency_key"
          ],
          replace_featured_image: ["article_id", "image", "url", "reason", "dry_run", "if_match", "idempotency_key"]
        }
        for (const [name, properties] of Object.entries(expected)) {
          const tool = byName.get(name)!
          assert.sameMembers(Object.keys(tool.inputSchema.properties), [...properties], name)
          assert.isDefined(tool.outputSchema.properties["data"], name)
        }
        assert.deepStrictEqual(byName.get("update_article")!.inputSchema.required, ["article_id"])
      })
    )

    it.effect("a tool's call-log row and revision equal its endpoint's, with origin MCP and the tool's name", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const fixtures = yield* makeFixtures(session.accountId)
        const id = fixtures.later
        const viaRest = yield* restWrite(session.key, "PATCH", `/articles/${id}`, { title: "By REST", reason: "r1" })
        assert.strictEqual(viaRest.status, 200)
        const viaMcp = yield* toolData(session, "update_article", { article_id: id, title: "By MCP", reason: "r2" })
        assert.strictEqual(viaMcp.data.title, "By MCP")
        yield* toolError(session, "update_article", { article_id: id, replacements: [{ find: "absent" }] })
        yield* rest(session.key, `/articles/${id}`)
        yield* toolData(session, "get_article", { article_id: id })
        yield* readRowsWritten
        const { calls, revisions } = yield* storyOf(id)
        assert.deepStrictEqual(calls, [
          { origin: "API", method: "PATCH", tool: null, status: 200 },
          { origin: "MCP", method: null, tool: "update_article", status: 200 },
          { origin: "MCP", method: null, tool: "update_article", status: 409 },
          { origin: "API", method: "GET", tool: null, status: 200 },
          { origin: "MCP", method: null, tool: "get_article", status: 200 }
        ])
        assert.deepStrictEqual(
          revisions.map(({ origin, reason, title }) => ({ origin, reason, title })),
          [
            { origin: "API", reason: "r1", title: "By REST" },
            { origin: "MCP", reason: "r2", title: "By MCP" }
          ]
        )
        void app
      })
    )

    it.effect("unknown fields at any depth are validation_error naming their path, through REST and MCP alike", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { later } = yield* makeFixtures(session.accountId)
        const before = yield* storedArticle(later)
        const typo = { replacements: [{ find: "boilers", replacement: "radiators" }] }
        const viaRest = yield* restWrite(session.key, "PATCH", `/articles/${later}`, typo)
        assert.strictEqual(viaRest.status, 422)
        assert.strictEqual(viaRest.body.error, "validation_error")
        assert.include(viaRest.body.message, "replacements.0.replacement")
        const viaMcp = yield* toolError(session, "update_article", { article_id: later, ...typo })
        assert.deepStrictEqual(viaMcp, viaRest.body)
        const titel = yield* restWrite(session.key, "PATCH", `/articles/${later}`, { titel: "New" })
        assert.strictEqual(titel.status, 422)
        assert.include(titel.body.message, "titel")
        const titelMcp = yield* toolError(session, "update_article", { article_id: later, titel: "New" })
        assert.strictEqual(titelMcp.error, "validation_error")
        assert.include(titelMcp.message, "titel")
        const mixed = yield* toolError(session, "update_article", {
          article_id: later,
          body: "<p>New.</p>",
          meta_description: "x"
        })
        assert.strictEqual(mixed.error, "validation_error")
        assert.include(mixed.message, "meta_description")
        assert.deepStrictEqual(yield* storedArticle(later), before)
      })
    )

    it.effect("a 9 MiB image through replace_featured_image lands; an 11 MiB one is image_too_large", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { later } = yield* makeFixtures(session.accountId)
        const png = Buffer.from(PNG_BASE64, "base64")
        const padded = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length)]).toString("base64")
        const landed = yield* toolData(session, "replace_featured_image", {
          article_id: later,
          image: padded(9 * 1024 * 1024)
        })
        assert.match(landed.data.featured_image_url, /\/media\/[0-9a-f]{64}\.png$/)
        const refused = yield* toolError(session, "replace_featured_image", {
          article_id: later,
          image: padded(11 * 1024 * 1024)
        })
        assert.strictEqual(refused.error, "image_too_large")
        assert.strictEqual(refused.limit, 10 * 1024 * 1024)
      })
    )
  })

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
        yield* startClock
        const session = yield* newSession
        const { later } = yield* makeFixtures(session.accountId)
        const replies = yield* Effect.all(
          ["Writer A", "Writer B"].map((title) =>
            callTool(session, "update_article", { article_id: later, title, if_match: '"0"' })
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
        yield* startClock
        const session = yield* newSession
        const { later } = yield* makeFixtures(session.accountId)
        const args = { article_id: later, title: "Exactly once", idempotency_key: "assistant-retry-1" }
        const first = yield* callTool(session, "update_article", args)
        const retry = yield* callTool(session, "update_article", args)
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
          yield* startClock
          const session = yield* newSession
          const { linked } = yield* makeFixtures(session.accountId)
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
