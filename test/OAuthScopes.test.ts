import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeBrowser, postRpc, REDIRECT_URI, signInWithSdk, toolsCall } from "./support/McpClient.js"
import { postRegistration } from "./support/OAuthFlow.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { PASSWORD, signedInAccount } from "./support/WebPages.js"

/**
 * The scopes of an assistant's connection at the token and registration endpoints: a refresh may keep or narrow what
 * the person allowed, never widen it (that is 400 invalid_scope saying to connect again, RFC 6749 §5.2 and §6), and
 * registration answers only the scopes the metadata publishes.
 */

/** A connection the person allowed to read only, or to read and edit: its client id and its tokens. */
const connection = (access: "read" | "edit") =>
  Effect.gen(function* () {
    const { app, email } = yield* signedInAccount()
    const { provider } = yield* signInWithSdk({
      mcpUrl: `${app.baseUrl}/mcp`,
      browser: makeBrowser(app.baseUrl),
      user: { email, password: PASSWORD },
      access
    })
    const tokens = provider.tokens()!
    return { app, clientId: provider.client!.client_id, refreshToken: tokens.refresh_token! }
  })

/** `POST /token` with this form body; status, headers and JSON body. */
const tokenForm = (form: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch("/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form
    })
    const body = (yield* Effect.promise(() => res.json())) as Record<string, string>
    return { status: res.status, headers: res.headers, body }
  })

/** `POST /token` with the refresh_token grant, `scope` as given (omitted when undefined). */
const refresh = (clientId: string, refreshToken: string, scope: string | undefined) =>
  tokenForm(
    new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: clientId,
      ...(scope === undefined ? {} : { scope })
    }).toString()
  )

/** Whether an access token may change an article: a write tool call is refused 403 for a read-only one. */
const canWrite = (accessToken: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const write = toolsCall("update_article", { article_id: 1, title: "Anything", dry_run: true })
    const reply = yield* postRpc(`${app.baseUrl}/mcp`, accessToken, write)
    assert.include([200, 403], reply.status, reply.text)
    return reply.status !== 403
  })

/** What each connection was granted, and whether its access tokens may edit. */
const granted = { read: ["content:read", false], edit: ["content:read content:write", true] } as const

layer(TestServerLive)("scopes at the token endpoint", (it) => {
  describe("a refresh asking for no more than was granted gets an access token as granted", () => {
    for (const [access, label, scope] of [
      ["read", "scope omitted", undefined],
      ["read", "an empty scope", ""],
      ["read", "the same scope", "content:read"],
      ["edit", "scope omitted", undefined],
      ["edit", "the same scope", "content:read content:write"],
      ["edit", "the scope of earlier versions, mcp", "mcp"]
    ] as const) {
      it.effect(`a ${access} connection, ${label}: an access token with scope ${granted[access][0]}`, () =>
        Effect.gen(function* () {
          const { clientId, refreshToken } = yield* connection(access)
          const { status, body } = yield* refresh(clientId, refreshToken, scope)
          assert.strictEqual(status, 200, JSON.stringify(body))
          assert.strictEqual(body["scope"], granted[access][0])
          assert.strictEqual(yield* canWrite(body["access_token"]!), granted[access][1])
        })
      )
    }
  })

  describe("a refresh of a read-only connection", () => {
    for (const [label, scope] of [
      ["content:write", "content:write"],
      ["content:read and content:write", "content:read content:write"],
      ["the scope of earlier versions, mcp", "mcp"]
    ] as const) {
      it.effect(`asking for ${label} is 400 invalid_scope saying to connect again; the refresh token still works`, () =>
        Effect.gen(function* () {
          const { clientId, refreshToken } = yield* connection("read")
          const { status, body } = yield* refresh(clientId, refreshToken, scope)
          assert.strictEqual(status, 400, JSON.stringify(body))
          assert.strictEqual(body["error"], "invalid_scope")
          assert.include(body["error_description"], "Connect again")
          assert.include(body["error_description"], "sign in again")
          assert.include(body["error_description"], "content:read")
          assert.isUndefined(body["access_token"])
          // Nothing was used up: the same refresh token, asking for what was granted, is still good.
          const again = yield* refresh(clientId, refreshToken, undefined)
          assert.strictEqual(again.status, 200, JSON.stringify(again.body))
          assert.strictEqual(again.body["scope"], "content:read")
        })
      )
    }

    it.effect("content:read+content:write, as a form encodes the space, is the same 400 invalid_scope", () =>
      Effect.gen(function* () {
        const { clientId, refreshToken } = yield* connection("read")
        const { status, headers, body } = yield* tokenForm(
          `grant_type=refresh_token&client_id=${encodeURIComponent(clientId)}&refresh_token=${refreshToken}&scope=content:read+content:write`
        )
        assert.strictEqual(status, 400, JSON.stringify(body))
        assert.strictEqual(body["error"], "invalid_scope")
        assert.strictEqual(headers.get("cache-control"), "no-store")
      })
    )

    it.effect("an unknown scope is 400 invalid_scope naming the scopes there are", () =>
      Effect.gen(function* () {
        const { clientId, refreshToken } = yield* connection("read")
        const { status, body } = yield* refresh(clientId, refreshToken, "content:read admin")
        assert.strictEqual(status, 400, JSON.stringify(body))
        assert.strictEqual(body["error"], "invalid_scope")
        assert.include(body["error_description"], "content:read and content:write")
      })
    )
  })

  describe("a refresh of a read-and-edit connection", () => {
    it.effect("a subset (content:read) gets an access token that can only read; the next refresh gets both again", () =>
      Effect.gen(function* () {
        const { clientId, refreshToken } = yield* connection("edit")
        const narrowed = yield* refresh(clientId, refreshToken, "content:read")
        assert.strictEqual(narrowed.status, 200, JSON.stringify(narrowed.body))
        assert.strictEqual(narrowed.body["scope"], "content:read")
        assert.isFalse(yield* canWrite(narrowed.body["access_token"]!))
        // The grant is what the person allowed: narrowing one access token does not give up the rest.
        const whole = yield* refresh(clientId, narrowed.body["refresh_token"]!, undefined)
        assert.strictEqual(whole.status, 200, JSON.stringify(whole.body))
        assert.strictEqual(whole.body["scope"], "content:read content:write")
        assert.isTrue(yield* canWrite(whole.body["access_token"]!))
      })
    )
  })
})

layer(TestServerLive)("scopes at the registration endpoint", (it) => {
  const register = (extra: Record<string, unknown>) =>
    postRegistration({
      client_name: "Scope Test",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      ...extra
    })

  for (const [label, extra] of [
    ["without a scope", {}],
    ["asking for mcp, the scope of earlier versions", { scope: "mcp" }],
    ["asking for a scope the service does not have", { scope: "admin offline_access" }]
  ] as const) {
    it.effect(`a registration ${label} is answered with the published scopes only`, () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { status, body } = yield* register(extra)
        assert.strictEqual(status, 201, JSON.stringify(body))
        const metadata = yield* app.fetch("/.well-known/oauth-authorization-server")
        const published = ((yield* Effect.promise(() => metadata.json())) as { scopes_supported: Array<string> })
          .scopes_supported
        assert.deepStrictEqual(published, ["content:read", "content:write"])
        assert.strictEqual(body["scope"], published.join(" "))
      })
    )
  }
})
