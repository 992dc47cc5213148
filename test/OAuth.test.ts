// @tags: runtime
import { createHash, randomBytes } from "node:crypto"
import http from "node:http"
import { Cookies, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, TestClock } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { Limits } from "../src/Limits/Limits.js"
import { AccessTokens } from "../src/OAuth/AccessTokens.js"
import { withSessionCookie } from "../src/SignIn/Cookies.js"
import {
  type Browser,
  hiddenField,
  makeBrowser,
  postRpc,
  REDIRECT_URI,
  type Reply,
  toolsList
} from "./support/McpClient.js"
import { serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"

// ---------------------------------------------------------------------------------------------------------------
// A second instance of the service on the same database, configured with the first one's public URL (as every
// instance behind one address would be).

class SecondServer extends Context.Tag("test/SecondServer")<SecondServer, { readonly baseUrl: string }>() {}

const SecondServerLive = Layer.scoped(
  SecondServer,
  Effect.gen(function* () {
    const app = yield* TestApp
    return { baseUrl: yield* serverWithSettings({ PUBLIC_BASE_URL: publicBaseOf(app.baseUrl) }) }
  })
)

const ServersLive = SecondServerLive.pipe(Layer.provideMerge(TestServerLive))

// ---------------------------------------------------------------------------------------------------------------
// A browser (test/support/McpClient.ts) and what to read off its replies.

/**
 * The test server has no PUBLIC_BASE_URL, so it names itself after the loopback address a request used; these tests
 * use http://localhost:<port> throughout, as a client given that address would.
 */
const publicBaseOf = (baseUrl: string) => `http://localhost:${new URL(baseUrl).port}`

const json = (reply: Reply) => JSON.parse(reply.text)

/** The query parameters of a redirect's Location. */
const paramsOf = (location: string | undefined) => new URL(location ?? "http://invalid/").searchParams

// ---------------------------------------------------------------------------------------------------------------
// Flow helpers.

const PASSWORD = "correct horse battery staple"

const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** The test's "now": under `layer(...)` the server runs on the test's clock, which starts at the epoch. */
const startClock = TestClock.setTime(Date.now())

const context = Effect.gen(function* () {
  const app = yield* TestApp
  const base = publicBaseOf(app.baseUrl)
  return { app, base, resource: `${base}/mcp`, browser: makeBrowser(base) }
})

/** Registers a public client; its client_id. */
const registerClient = (browser: Browser, metadata: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const reply = yield* browser.postJson("/register", {
      client_name: "Test Assistant",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...metadata
    })
    assert.strictEqual(reply.status, 201, reply.text)
    return json(reply).client_id as string
  })

/** A user with a password; its e-mail, user id and account id. */
const makeUser = Effect.gen(function* () {
  const app = yield* TestApp
  const accounts = yield* Accounts
  const email = `oauth-${randomBytes(4).toString("hex")}@example.com`
  const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
  const row = Option.getOrThrow(yield* accounts.findByEmail(email))
  return { email, accountId, userId: row.user_id }
})

const authorizeQuery = (options: {
  readonly clientId: string
  readonly challenge: string
  readonly resource: string
  readonly extra?: Record<string, string>
}) =>
  new URLSearchParams({
    response_type: "code",
    client_id: options.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: options.challenge,
    code_challenge_method: "S256",
    state: "state-123",
    scope: "mcp",
    resource: options.resource,
    ...options.extra
  }).toString()

/** Signs in through the form the authorize request leads to; the consent page that follows. */
const signInThrough = (browser: Browser, authorizePath: string, email: string, password = PASSWORD) =>
  Effect.gen(function* () {
    const start = yield* browser.get(authorizePath)
    assert.strictEqual(start.status, 303, start.text)
    const form = yield* browser.get(start.location!)
    assert.strictEqual(form.status, 200)
    const signedIn = yield* browser.post("/signin", {
      email,
      password,
      return_to: hiddenField(form.text, "return_to") ?? "",
      csrf: hiddenField(form.text, "csrf") ?? ""
    })
    assert.strictEqual(signedIn.status, 303, signedIn.text)
    assert.strictEqual(signedIn.location, authorizePath)
    return yield* browser.get(signedIn.location!)
  })

/** Consent page → Allow; the redirect back to the client. */
const allow = (browser: Browser, consent: Reply, decision = "allow") =>
  browser.post("/authorize", {
    query: hiddenField(consent.text, "query") ?? "",
    csrf: hiddenField(consent.text, "csrf") ?? "",
    decision
  })

/** Everything up to an authorization code: client, user, sign-in, Allow. */
const authorizedCode = (options: { readonly extra?: Record<string, string> } = {}) =>
  Effect.gen(function* () {
    const { browser, resource, base } = yield* context
    const clientId = yield* registerClient(browser)
    const user = yield* makeUser
    const pkce = pkcePair()
    const path = `/authorize?${authorizeQuery({ clientId, challenge: pkce.challenge, resource, ...options })}`
    const consent = yield* signInThrough(browser, path, user.email)
    assert.strictEqual(consent.status, 200, consent.text)
    const back = yield* allow(browser, consent)
    assert.strictEqual(back.status, 302, back.text)
    const code = paramsOf(back.location).get("code")!
    return { browser, base, resource, clientId, user, pkce, code, redirect: back }
  })

const tokenRequest = (browser: Browser, fields: Record<string, string>) => browser.post("/token", fields)

const exchange = (
  browser: Browser,
  flow: { readonly clientId: string; readonly code: string; readonly pkce: { readonly verifier: string } },
  overrides: Record<string, string> = {}
) =>
  tokenRequest(browser, {
    grant_type: "authorization_code",
    code: flow.code,
    redirect_uri: REDIRECT_URI,
    client_id: flow.clientId,
    code_verifier: flow.pkce.verifier,
    ...overrides
  })

const refresh = (browser: Browser, clientId: string, refreshToken: string) =>
  tokenRequest(browser, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId })

/** The credential an access token carries now, if it is live (finding it counts a request of its user). */
const verify = (token: string) =>
  Effect.gen(function* () {
    const tokens = yield* AccessTokens
    const window = yield* Effect.flatMap(Limits, (limits) => limits.currentWindow)
    return Option.map(yield* tokens.verifyCounting(token, window), (found) => found.credential)
  })

const assertOAuthError = (reply: Reply, status: number, error: string) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
  const body = json(reply)
  assert.strictEqual(body.error, error, reply.text)
  assert.isString(body.error_description)
}

const assertNoStore = (reply: Reply) => {
  assert.strictEqual(reply.headers.get("cache-control"), "no-store")
  assert.strictEqual(reply.headers.get("pragma"), "no-cache")
}

const revoke = (browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  browser.post("/revoke", fields, headers)

/** Basic client credentials (RFC 6749 §2.3.1). */
const basicAuth = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The status of a tools/list at /mcp with this bearer token (200, or 401 once the token no longer works). */
const mcpStatus = (token: string) =>
  Effect.gen(function* () {
    const { app } = yield* context
    return (yield* postRpc(`${app.baseUrl}/mcp`, token, toolsList)).status
  })

/** A confidential client registered for `method`, with its secret, taken through sign-in and Allow to a code. */
const confidentialCode = (method: "client_secret_basic" | "client_secret_post") =>
  Effect.gen(function* () {
    const { browser, resource } = yield* context
    const registered = yield* browser.postJson("/register", {
      client_name: "Server app",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: method
    })
    assert.strictEqual(registered.status, 201, registered.text)
    const client = json(registered) as { client_id: string; client_secret: string }
    const user = yield* makeUser
    const pkce = pkcePair()
    const path = `/authorize?${authorizeQuery({ clientId: client.client_id, challenge: pkce.challenge, resource })}`
    const back = yield* allow(browser, yield* signInThrough(browser, path, user.email))
    const fields = {
      grant_type: "authorization_code",
      code: paramsOf(back.location).get("code")!,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier
    }
    return { browser, client, fields }
  })

layer(ServersLive)("OAuth authorization server", (it) => {
  describe("metadata", () => {
    it.effect("protected-resource metadata names <base>/mcp and the service as its authorization server", () =>
      Effect.gen(function* () {
        const { browser, base } = yield* context
        for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          const body = json(reply)
          assert.strictEqual(body.resource, `${base}/mcp`)
          assert.deepStrictEqual(body.authorization_servers, [base])
          assert.deepStrictEqual(body.scopes_supported, ["content:read", "content:write"])
          assert.deepStrictEqual(body.bearer_methods_supported, ["header"])
        }
      })
    )

    it.effect(
      "authorization-server metadata: issuer is the base URL without a trailing slash, endpoints under it",
      () =>
        Effect.gen(function* () {
          const { browser, base } = yield* context
          const reply = yield* browser.get("/.well-known/oauth-authorization-server")
          assert.strictEqual(reply.status, 200)
          const body = json(reply)
          assert.strictEqual(body.issuer, base)
          assert.isFalse(body.issuer.endsWith("/"))
          assert.strictEqual(body.authorization_endpoint, `${base}/authorize`)
          assert.strictEqual(body.token_endpoint, `${base}/token`)
          assert.strictEqual(body.registration_endpoint, `${base}/register`)
          assert.deepStrictEqual(body.code_challenge_methods_supported, ["S256"])
          assert.deepStrictEqual(body.response_types_supported, ["code"])
          assert.deepStrictEqual(body.grant_types_supported, ["authorization_code", "refresh_token"])
          assert.include(body.token_endpoint_auth_methods_supported, "none")
          assert.deepStrictEqual(body.scopes_supported, ["content:read", "content:write"])
          assert.strictEqual(body.authorization_response_iss_parameter_supported, true)
        })
    )

    it.effect("the documents take their URLs from the configured base URL, not from the Host header", () =>
      Effect.gen(function* () {
        const { app, base } = yield* context
        // fetch does not let a caller set Host; node:http does.
        const body = yield* Effect.async<string>((resume) => {
          const request = http.get(
            `${app.baseUrl}/.well-known/oauth-authorization-server`,
            { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } },
            (res) => {
              let text = ""
              res.on("data", (chunk) => {
                text += chunk
              })
              res.on("end", () => resume(Effect.succeed(text)))
            }
          )
          request.on("error", (error) => resume(Effect.die(error)))
        })
        assert.strictEqual(JSON.parse(body).issuer, base)
        assert.notInclude(body, "evil.example")
      })
    )

    it.effect("CORS preflights on the documents, /register and /token answer 204 with the allowed headers", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        for (const path of [
          "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-protected-resource/mcp",
          "/register",
          "/token"
        ]) {
          const reply = yield* browser.send(path, {
            method: "OPTIONS",
            headers: { origin: "https://client.example", "access-control-request-method": "POST" }
          })
          assert.strictEqual(reply.status, 204, path)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          assert.include(reply.headers.get("access-control-allow-methods") ?? "", "POST")
          assert.include(reply.headers.get("access-control-allow-headers") ?? "", "Mcp-Protocol-Version")
          assert.include(reply.headers.get("access-control-expose-headers") ?? "", "WWW-Authenticate")
        }
      })
    )
  })

  describe("dynamic client registration", () => {
    it.effect(
      "accepts https, loopback http with a port and private-use schemes, and answers 201 with the metadata",
      () =>
        Effect.gen(function* () {
          const { browser } = yield* context
          const uris = [
            "https://claude.ai/api/mcp/auth_callback",
            "http://127.0.0.1:6274/oauth/callback",
            "http://localhost:33418/callback",
            "http://[::1]:8080/cb",
            "cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback",
            "cursor://callback",
            "vscode://vscode.github-authentication/did-authenticate"
          ]
          const reply = yield* browser.postJson("/register", {
            client_name: "Some Assistant",
            redirect_uris: uris,
            token_endpoint_auth_method: "none"
          })
          assert.strictEqual(reply.status, 201, reply.text)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          const body = json(reply)
          assert.match(body.client_id, /^cbs_client_/)
          assert.strictEqual(body.client_name, "Some Assistant")
          assert.deepStrictEqual(body.redirect_uris, uris)
          assert.deepStrictEqual(body.grant_types, ["authorization_code", "refresh_token"])
          assert.deepStrictEqual(body.response_types, ["code"])
          assert.strictEqual(body.token_endpoint_auth_method, "none")
          assert.isNumber(body.client_id_issued_at)
          assert.isUndefined(body.client_secret)
        })
    )

    it.effect("refuses javascript:, data:, file:, non-loopback http and fragments with 400 invalid_redirect_uri", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        for (const uri of [
          "javascript:alert(1)",
          "data:text/html,<script>alert(1)</script>",
          "file:///etc/passwd",
          "http://example.com/callback",
          "http://127.0.0.1.example.com/cb",
          "https://example.com/callback#fragment",
          "not a uri"
        ]) {
          const reply = yield* browser.postJson("/register", {
            redirect_uris: [uri],
            token_endpoint_auth_method: "none"
          })
          assertOAuthError(reply, 400, "invalid_redirect_uri")
        }
        const none = yield* browser.postJson("/register", { client_name: "x", token_endpoint_auth_method: "none" })
        assertOAuthError(none, 400, "invalid_redirect_uri")
      })
    )

    it.effect("refuses other bad metadata and unreadable bodies with 400 invalid_client_metadata JSON", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const cases: ReadonlyArray<unknown> = [
          { redirect_uris: [REDIRECT_URI], grant_types: ["client_credentials"] },
          { redirect_uris: [REDIRECT_URI], response_types: ["token"] },
          { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "private_key_jwt" },
          { redirect_uris: [REDIRECT_URI], client_name: 42 },
          [REDIRECT_URI]
        ]
        for (const body of cases)
          assertOAuthError(yield* browser.postJson("/register", body), 400, "invalid_client_metadata")
        const malformed = yield* browser.send("/register", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{not json"
        })
        assertOAuthError(malformed, 400, "invalid_client_metadata")
      })
    )
    it.effect("metadata nested 100,000 deep in any field is 400 invalid_client_metadata, never a 500", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
        for (const field of ["client_name", "grant_types", "response_types", "token_endpoint_auth_method"]) {
          const reply = yield* browser.send("/register", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: `{"redirect_uris":[${JSON.stringify(REDIRECT_URI)}],${JSON.stringify(field)}:${deep}}`
          })
          assertOAuthError(reply, 400, "invalid_client_metadata")
        }
        const uris = yield* browser.send("/register", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: `{"redirect_uris":${deep}}`
        })
        assertOAuthError(uris, 400, "invalid_redirect_uri")
      })
    )
  })

  describe("authorization", () => {
    it.effect("signed out, /authorize leads to the sign-in form; a wrong password is refused with a message", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
        const start = yield* browser.get(path)
        assert.strictEqual(start.status, 303)
        assert.match(start.location ?? "", /^\/signin\?return_to=/)
        const form = yield* browser.get(start.location!)
        assert.strictEqual(form.status, 200)
        assert.match(form.headers.get("content-type") ?? "", /^text\/html/)
        assert.include(form.text, '<label for="email">')
        assert.include(form.text, '<label for="password">')
        assert.include(form.text, 'action="/signin"')
        assert.strictEqual(hiddenField(form.text, "return_to"), path)
        const csrf = hiddenField(form.text, "csrf")!
        const wrong = yield* browser.post("/signin", { email: user.email, password: "wrong", return_to: path, csrf })
        assert.strictEqual(wrong.status, 401)
        assert.include(wrong.text, "not right")
        assert.isFalse(browser.jar.has("cbs_session"))
        const right = yield* browser.post("/signin", { email: user.email, password: PASSWORD, return_to: path, csrf })
        assert.strictEqual(right.status, 303)
        assert.strictEqual(right.location, path)
        const cookie = right.headers.getSetCookie().find((line) => line.startsWith("cbs_session="))!
        assert.match(cookie, /HttpOnly/i)
        assert.match(cookie, /SameSite=Lax/i)
        assert.match(cookie, /Path=\//)
        assert.notMatch(cookie, /Secure/i)
      })
    )

    it.effect(
      "the consent page names the client and its redirect host, carries a CSRF token and cannot be framed",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { browser, resource } = yield* context
          const clientId = yield* registerClient(browser, { client_name: "Claude <Test> & Co" })
          const user = yield* makeUser
          const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
          const consent = yield* signInThrough(browser, path, user.email)
          assert.strictEqual(consent.status, 200)
          assert.include(consent.text, "Claude &lt;Test&gt; &amp; Co")
          assert.notInclude(consent.text, "<Test>")
          assert.include(consent.text, "127.0.0.1:33418")
          assert.include(consent.text, user.email)
          assert.match(hiddenField(consent.text, "csrf") ?? "", /^[A-Za-z0-9_-]{40,}$/)
          assert.include(consent.text, 'value="allow"')
          assert.include(consent.text, 'value="deny"')
          const csp = consent.headers.get("content-security-policy") ?? ""
          assert.include(csp, "frame-ancestors 'none'")
          assert.include(csp, "default-src 'self'")
          assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:33418/)
          assert.strictEqual(consent.headers.get("x-frame-options"), "DENY")
        })
    )

    it.effect("Allow redirects with code, the same state and iss; the token exchange gives the user's credential", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const params = paramsOf(flow.redirect.location)
        assert.isTrue(flow.redirect.location!.startsWith(`${REDIRECT_URI}?`))
        assert.match(params.get("code") ?? "", /^cbs_ac_/)
        assert.strictEqual(params.get("state"), "state-123")
        assert.strictEqual(params.get("iss"), flow.base)
        const reply = yield* exchange(flow.browser, flow, { resource: flow.resource })
        assert.strictEqual(reply.status, 200, reply.text)
        assertNoStore(reply)
        const body = json(reply)
        assert.deepStrictEqual(Object.keys(body).sort(), [
          "access_token",
          "expires_in",
          "refresh_token",
          "scope",
          "token_type"
        ])
        assert.match(body.access_token, /^cbs_at_/)
        assert.match(body.refresh_token, /^cbs_rt_/)
        assert.strictEqual(body.token_type, "Bearer")
        assert.strictEqual(body.expires_in, 3600)
        assert.strictEqual(body.scope, "content:read content:write")
        const credential = yield* verify(body.access_token)
        assert.deepStrictEqual(Option.getOrUndefined(credential), {
          kind: "user",
          id: flow.user.userId,
          accountId: flow.user.accountId,
          isAdmin: false,
          canWrite: body.scope.split(" ").includes("content:write")
        })
        assert.isTrue(Option.isNone(yield* verify("cbs_at_unknown")))
        assert.isTrue(Option.isNone(yield* verify(body.refresh_token)))
      })
    )

    it.effect("Deny redirects with error=access_denied, the same state and iss", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource, base } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
        const consent = yield* signInThrough(browser, path, user.email)
        const back = yield* allow(browser, consent, "deny")
        assert.strictEqual(back.status, 302)
        const params = paramsOf(back.location)
        assert.strictEqual(params.get("error"), "access_denied")
        assert.strictEqual(params.get("state"), "state-123")
        assert.strictEqual(params.get("iss"), base)
        assert.isNull(params.get("code"))
      })
    )

    it.effect("a loopback redirect URI may use another port than the registered one; another path may not", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const challenge = pkcePair().challenge
        const otherPort = authorizeQuery({
          clientId,
          challenge,
          resource,
          extra: { redirect_uri: "http://127.0.0.1:50123/callback" }
        })
        const consent = yield* signInThrough(browser, `/authorize?${otherPort}`, user.email)
        assert.strictEqual(consent.status, 200)
        const back = yield* allow(browser, consent)
        assert.isTrue(back.location!.startsWith("http://127.0.0.1:50123/callback?code="))
        const otherPath = authorizeQuery({
          clientId,
          challenge,
          resource,
          extra: { redirect_uri: "http://127.0.0.1:50123/other" }
        })
        const refused = yield* browser.get(`/authorize?${otherPath}`)
        assert.strictEqual(refused.status, 400)
        assert.isUndefined(refused.location)
      })
    )

    it.effect("an unknown client or an unregistered redirect URI is an error page, never a redirect", () =>
      Effect.gen(function* () {
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const challenge = pkcePair().challenge
        for (const query of [
          authorizeQuery({ clientId: "cbs_client_unknown", challenge, resource }),
          authorizeQuery({ clientId, challenge, resource, extra: { redirect_uri: "https://attacker.example/cb" } }),
          authorizeQuery({ clientId, challenge, resource, extra: { redirect_uri: `${REDIRECT_URI}#x` } })
        ]) {
          const reply = yield* browser.get(`/authorize?${query}`)
          assert.strictEqual(reply.status, 400)
          assert.isUndefined(reply.location)
          assert.match(reply.headers.get("content-type") ?? "", /^text\/html/)
          assert.include(reply.headers.get("content-security-policy") ?? "", "frame-ancestors 'none'")
        }
      })
    )

    it.effect("missing PKCE, a plain challenge or another server's resource are redirected as errors with state", () =>
      Effect.gen(function* () {
        const { browser, resource, base } = yield* context
        const clientId = yield* registerClient(browser)
        const challenge = pkcePair().challenge
        const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
          [{ code_challenge: "" }, "invalid_request"],
          [{ code_challenge_method: "plain" }, "invalid_request"],
          [{ resource: "https://other.example/mcp" }, "invalid_target"],
          [{ response_type: "token" }, "unsupported_response_type"]
        ]
        for (const [extra, error] of cases) {
          const reply = yield* browser.get(`/authorize?${authorizeQuery({ clientId, challenge, resource, extra })}`)
          assert.strictEqual(reply.status, 302, JSON.stringify(extra))
          const params = paramsOf(reply.location)
          assert.isTrue(reply.location!.startsWith(REDIRECT_URI))
          assert.strictEqual(params.get("error"), error)
          assert.strictEqual(params.get("state"), "state-123")
          assert.strictEqual(params.get("iss"), base)
        }
        const noMethod = new URLSearchParams(authorizeQuery({ clientId, challenge, resource }))
        noMethod.delete("code_challenge_method")
        assert.strictEqual(
          paramsOf((yield* browser.get(`/authorize?${noMethod}`)).location).get("error"),
          "invalid_request"
        )
      })
    )

    it.effect(
      "a state over 2,048 characters is redirected as invalid_request without it, by GET and POST /authorize alike",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { browser, resource } = yield* context
          const clientId = yield* registerClient(browser)
          const challenge = pkcePair().challenge
          const longest = authorizeQuery({ clientId, challenge, resource, extra: { state: "s".repeat(2_048) } })
          const accepted = yield* browser.get(`/authorize?${longest}`)
          assert.notInclude(accepted.location ?? "", "error=", accepted.location)
          const tooLong = authorizeQuery({ clientId, challenge, resource, extra: { state: "s".repeat(2_049) } })
          const refusedByGet = yield* browser.get(`/authorize?${tooLong}`)
          const user = yield* makeUser
          const consent = yield* signInThrough(browser, `/authorize?${longest}`, user.email)
          const refusedByPost = yield* browser.post("/authorize", {
            query: tooLong.toString(),
            csrf: hiddenField(consent.text, "csrf")!,
            decision: "allow"
          })
          for (const reply of [refusedByGet, refusedByPost]) {
            assert.strictEqual(reply.status, 302, reply.text)
            assert.isTrue(reply.location!.startsWith(REDIRECT_URI), reply.location)
            assert.isBelow(reply.location!.length, 512, reply.location)
            const params = paramsOf(reply.location)
            assert.strictEqual(params.get("error"), "invalid_request")
            assert.include(params.get("error_description"), "state")
            assert.isNull(params.get("state"))
            assert.isNull(params.get("code"))
          }
        })
    )

    it.effect("prompt=none while signed out answers login_required instead of showing a page", () =>
      Effect.gen(function* () {
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const query = authorizeQuery({ clientId, challenge: pkcePair().challenge, resource, extra: { prompt: "none" } })
        const reply = yield* browser.get(`/authorize?${query}`)
        assert.strictEqual(reply.status, 302)
        assert.strictEqual(paramsOf(reply.location).get("error"), "login_required")
      })
    )
  })

  describe("redirect URIs outside ASCII", () => {
    it.effect("a redirect URI outside ASCII gets its code and its errors at a percent-encoded Location", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const uri = "https://client.example/€"
        const clientId = yield* registerClient(browser, { redirect_uris: [uri] })
        const user = yield* makeUser
        const pkce = pkcePair()
        const extra = { redirect_uri: uri }
        const refused = yield* browser.get(
          `/authorize?${authorizeQuery({ clientId, challenge: pkce.challenge, resource, extra: { ...extra, code_challenge_method: "plain" } })}`
        )
        assert.strictEqual(refused.status, 302, refused.text)
        assert.isTrue(refused.location!.startsWith("https://client.example/%E2%82%AC?error=invalid_request&"))
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkce.challenge, resource, extra })}`
        const denied = yield* allow(browser, yield* signInThrough(browser, path, user.email), "deny")
        assert.strictEqual(denied.status, 302, denied.text)
        assert.isTrue(denied.location!.startsWith("https://client.example/%E2%82%AC?error=access_denied&"))
        const back = yield* allow(browser, yield* browser.get(path))
        assert.strictEqual(back.status, 302, back.text)
        assert.isTrue(back.location!.startsWith("https://client.example/%E2%82%AC?code=cbs_ac_"))
        // The token request names the redirect URI as it was registered.
        const code = paramsOf(back.location).get("code")!
        const reply = yield* exchange(browser, { clientId, code, pkce }, { redirect_uri: uri })
        assert.strictEqual(reply.status, 200, reply.text)
      })
    )
  })

  describe("NUL (U+0000) in OAuth input", () => {
    it.effect("at /token, a NUL in client_id or any field is an OAuth error, never a 500", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const clientId = yield* registerClient(browser)
        const fields = { grant_type: "authorization_code", code: "cbs_ac_x", code_verifier: pkcePair().verifier }
        assertOAuthError(yield* tokenRequest(browser, { ...fields, client_id: "\u0000" }), 400, "invalid_request")
        assertOAuthError(
          yield* tokenRequest(browser, { ...fields, client_id: clientId, code: "a\u0000" }),
          400,
          "invalid_request"
        )
        const basic = `Basic ${Buffer.from("%00:secret").toString("base64")}`
        const viaHeader = yield* browser.post("/token", fields, { authorization: basic })
        assertOAuthError(viaHeader, 401, "invalid_client")
        assertNoStore(viaHeader)
      })
    )

    it.effect(
      "at /authorize, a NUL client_id is an error page; a NUL in another field is redirected as invalid_request",
      () =>
        Effect.gen(function* () {
          const { browser, resource } = yield* context
          const clientId = yield* registerClient(browser)
          const challenge = pkcePair().challenge
          for (const query of ["client_id=%00", authorizeQuery({ clientId: "\u0000", challenge, resource })]) {
            const page = yield* browser.get(`/authorize?${query}`)
            assert.strictEqual(page.status, 400, page.text)
            assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
            assert.isUndefined(page.location)
          }
          const extra = { state: "a\u0000b" }
          const redirected = yield* browser.get(
            `/authorize?${authorizeQuery({ clientId, challenge, resource, extra })}`
          )
          assert.strictEqual(redirected.status, 302, redirected.text)
          assert.isTrue(redirected.location!.startsWith(`${REDIRECT_URI}?`))
          assert.strictEqual(paramsOf(redirected.location).get("error"), "invalid_request")
        })
    )

    it.effect("at /register, a NUL in any field is a 400 OAuth error and registers nothing", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const sql = yield* SqlClient.SqlClient
        const clients = sql<{ n: number }>`select count(*)::int as n from oauth_clients`.pipe(
          Effect.map((rows) => rows[0]!.n),
          Effect.orDie
        )
        const before = yield* clients
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ client_name: "Assistant\u0000" }, "invalid_client_metadata"],
          [{ grant_types: ["authorization_code", "refresh_token\u0000"] }, "invalid_client_metadata"],
          [{ response_types: ["code\u0000"] }, "invalid_client_metadata"],
          [{ token_endpoint_auth_method: "none\u0000" }, "invalid_client_metadata"],
          [{ redirect_uris: ["https://client.example/\u0000"] }, "invalid_redirect_uri"]
        ]
        for (const [fields, error] of cases) {
          const reply = yield* browser.postJson("/register", { redirect_uris: [REDIRECT_URI], ...fields })
          assertOAuthError(reply, 400, error)
        }
        assert.strictEqual(yield* clients, before)
      })
    )
  })

  describe("CSRF and sessions", () => {
    it.effect("a consent POST with a missing or wrong CSRF token is refused with 403 and redirects nowhere", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource, app } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
        const consent = yield* signInThrough(browser, path, user.email)
        const query = hiddenField(consent.text, "query")!
        const missing = yield* browser.post("/authorize", { query, decision: "allow" })
        assert.strictEqual(missing.status, 403)
        assert.isUndefined(missing.location)
        const wrong = yield* browser.post("/authorize", { query, decision: "allow", csrf: "x".repeat(43) })
        assert.strictEqual(wrong.status, 403)
        // Another user's valid token does not work with this session either.
        const other = makeBrowser(publicBaseOf(app.baseUrl))
        const otherUser = yield* makeUser
        const otherConsent = yield* signInThrough(other, path, otherUser.email)
        const foreign = yield* browser.post("/authorize", {
          query,
          decision: "allow",
          csrf: hiddenField(otherConsent.text, "csrf")!
        })
        assert.strictEqual(foreign.status, 403)
        assert.isUndefined(foreign.location)
      })
    )

    it.effect("the consent form's parameters are validated again: a tampered redirect URI is refused", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
        const consent = yield* signInThrough(browser, path, user.email)
        const tampered = new URLSearchParams(hiddenField(consent.text, "query"))
        tampered.set("redirect_uri", "https://attacker.example/cb")
        const reply = yield* browser.post("/authorize", {
          query: tampered.toString(),
          csrf: hiddenField(consent.text, "csrf")!,
          decision: "allow"
        })
        assert.strictEqual(reply.status, 400)
        assert.isUndefined(reply.location)
      })
    )

    it.effect("POST /signout needs the CSRF token, then ends the session", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const clientId = yield* registerClient(browser)
        const user = yield* makeUser
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge, resource })}`
        const consent = yield* signInThrough(browser, path, user.email)
        const refused = yield* browser.post("/signout", { csrf: "wrong" })
        assert.strictEqual(refused.status, 403)
        assert.strictEqual((yield* browser.get(path)).status, 200)
        const cookie = browser.jar.get("cbs_session")!
        const out = yield* browser.post("/signout", { csrf: hiddenField(consent.text, "csrf")! })
        assert.strictEqual(out.status, 303)
        assert.isFalse(browser.jar.has("cbs_session"))
        // The session is gone on the server too, not only from the browser.
        const replayed = yield* browser.get(path, { cookie: `cbs_session=${cookie}` })
        assert.strictEqual(replayed.status, 303)
        assert.match(replayed.location ?? "", /^\/signin/)
      })
    )
  })

  describe("token endpoint", () => {
    it.effect("a wrong code_verifier is invalid_grant", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const reply = yield* exchange(flow.browser, flow, { code_verifier: pkcePair().verifier })
        assertOAuthError(reply, 400, "invalid_grant")
        assertNoStore(reply)
      })
    )

    it.effect("a redirect_uri other than the authorization request's is invalid_grant", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const reply = yield* exchange(flow.browser, flow, { redirect_uri: "http://127.0.0.1:33418/other" })
        assertOAuthError(reply, 400, "invalid_grant")
      })
    )

    it.effect("a missing code_verifier is invalid_request", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const reply = yield* tokenRequest(flow.browser, {
          grant_type: "authorization_code",
          code: flow.code,
          redirect_uri: REDIRECT_URI,
          client_id: flow.clientId
        })
        assertOAuthError(reply, 400, "invalid_request")
      })
    )

    it.effect("a resource other than the code's is invalid_target", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const reply = yield* exchange(flow.browser, flow, { resource: "https://other.example/mcp" })
        assertOAuthError(reply, 400, "invalid_target")
      })
    )

    it.effect("a code presented again is invalid_grant, and the tokens issued from it stop working", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const first = json(yield* exchange(flow.browser, flow))
        assert.isTrue(Option.isSome(yield* verify(first.access_token)))
        const again = yield* exchange(flow.browser, flow)
        assertOAuthError(again, 400, "invalid_grant")
        assert.isTrue(Option.isNone(yield* verify(first.access_token)))
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, first.refresh_token), 400, "invalid_grant")
      })
    )

    it.effect("a code is bound to its client and expires after 60 seconds", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const otherClient = yield* registerClient(flow.browser)
        assertOAuthError(yield* exchange(flow.browser, flow, { client_id: otherClient }), 400, "invalid_grant")
        const late = yield* authorizedCode()
        yield* TestClock.adjust("61 seconds")
        assertOAuthError(yield* exchange(late.browser, late), 400, "invalid_grant")
      })
    )

    it.effect("refresh rotates the refresh token; the previous one works once more within 30 s, then fails", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const first = json(yield* exchange(flow.browser, flow))
        const second = yield* refresh(flow.browser, flow.clientId, first.refresh_token)
        assert.strictEqual(second.status, 200, second.text)
        assertNoStore(second)
        const rotated = json(second)
        assert.notStrictEqual(rotated.refresh_token, first.refresh_token)
        assert.notStrictEqual(rotated.access_token, first.access_token)
        assert.strictEqual(rotated.token_type, "Bearer")
        assert.strictEqual(rotated.scope, "content:read content:write")
        assert.isTrue(Option.isSome(yield* verify(rotated.access_token)))
        yield* TestClock.adjust("10 seconds")
        const retry = yield* refresh(flow.browser, flow.clientId, first.refresh_token)
        assert.strictEqual(retry.status, 200, retry.text)
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, first.refresh_token), 400, "invalid_grant")
      })
    )

    it.effect("a used refresh token presented after the grace window fails and ends the grant", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const first = json(yield* exchange(flow.browser, flow))
        const rotated = json(yield* refresh(flow.browser, flow.clientId, first.refresh_token))
        yield* TestClock.adjust("31 seconds")
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, first.refresh_token), 400, "invalid_grant")
        assert.isTrue(Option.isNone(yield* verify(rotated.access_token)))
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, rotated.refresh_token), 400, "invalid_grant")
      })
    )

    it.effect("a refresh token works only for its own client", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const first = json(yield* exchange(flow.browser, flow))
        const otherClient = yield* registerClient(flow.browser)
        assertOAuthError(yield* refresh(flow.browser, otherClient, first.refresh_token), 400, "invalid_grant")
        assert.strictEqual((yield* refresh(flow.browser, flow.clientId, first.refresh_token)).status, 200)
      })
    )

    it.effect("an access token no longer verifies once its lifetime has passed", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const tokens = json(yield* exchange(flow.browser, flow))
        yield* TestClock.adjust("3599 seconds")
        assert.isTrue(Option.isSome(yield* verify(tokens.access_token)))
        yield* TestClock.adjust("2 seconds")
        assert.isTrue(Option.isNone(yield* verify(tokens.access_token)))
        // The refresh token still gets a new one.
        const renewed = json(yield* refresh(flow.browser, flow.clientId, tokens.refresh_token))
        assert.isTrue(Option.isSome(yield* verify(renewed.access_token)))
      })
    )

    it.effect("errors are OAuth JSON with no-store, never HTML; an unknown client is 401 invalid_client", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const clientId = yield* registerClient(browser)
        const unsupported = yield* tokenRequest(browser, { grant_type: "password", client_id: clientId })
        assertOAuthError(unsupported, 400, "unsupported_grant_type")
        assertNoStore(unsupported)
        assertOAuthError(yield* tokenRequest(browser, { client_id: clientId }), 400, "invalid_request")
        const unknown = yield* tokenRequest(browser, {
          grant_type: "authorization_code",
          client_id: "nobody",
          code: "x"
        })
        assertOAuthError(unknown, 401, "invalid_client")
        assertNoStore(unknown)
        const asJson = yield* browser.postJson("/token", { grant_type: "authorization_code", client_id: clientId })
        assertOAuthError(asJson, 400, "invalid_request")
        assertNoStore(asJson)
        const unknownCode = yield* tokenRequest(browser, {
          grant_type: "authorization_code",
          client_id: clientId,
          code: "cbs_ac_nothing",
          code_verifier: pkcePair().verifier
        })
        assertOAuthError(unknownCode, 400, "invalid_grant")
        const duplicated = yield* browser.send("/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `grant_type=refresh_token&grant_type=authorization_code&client_id=${clientId}`
        })
        assertOAuthError(duplicated, 400, "invalid_request")
      })
    )

    it.effect("a confidential client gets a secret at registration and must send it (Basic) at /token", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, resource } = yield* context
        const registered = yield* browser.postJson("/register", {
          client_name: "Server app",
          redirect_uris: [REDIRECT_URI]
        })
        assert.strictEqual(registered.status, 201)
        const client = json(registered)
        assert.strictEqual(client.token_endpoint_auth_method, "client_secret_basic")
        assert.match(client.client_secret, /^cbs_cs_/)
        const user = yield* makeUser
        const pkce = pkcePair()
        const path = `/authorize?${authorizeQuery({ clientId: client.client_id, challenge: pkce.challenge, resource })}`
        const back = yield* allow(browser, yield* signInThrough(browser, path, user.email))
        const code = paramsOf(back.location).get("code")!
        const fields = {
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: pkce.verifier
        }
        const basic = (secret: string) =>
          `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`
        const wrong = yield* browser.post("/token", fields, { authorization: basic("cbs_cs_wrong") })
        assertOAuthError(wrong, 401, "invalid_client")
        const noSecret = yield* browser.post("/token", { ...fields, client_id: client.client_id })
        assertOAuthError(noSecret, 401, "invalid_client")
        // The failed attempts did not reach the code: client authentication comes first.
        const right = yield* browser.post("/token", fields, { authorization: basic(client.client_secret) })
        assert.strictEqual(right.status, 200, right.text)
      })
    )
  })

  describe("revocation (RFC 7009)", () => {
    it.effect("the metadata lists /revoke, its client authentication methods and the refresh-token grace", () =>
      Effect.gen(function* () {
        const { browser, base } = yield* context
        const body = json(yield* browser.get("/.well-known/oauth-authorization-server"))
        assert.strictEqual(body.revocation_endpoint, `${base}/revoke`)
        assert.sameMembers(body.revocation_endpoint_auth_methods_supported, [
          "none",
          "client_secret_post",
          "client_secret_basic"
        ])
        assert.strictEqual(body.refresh_token_grace_seconds, 30)
        const preflight = yield* browser.send("/revoke", {
          method: "OPTIONS",
          headers: { origin: "https://client.example", "access-control-request-method": "POST" }
        })
        assert.strictEqual(preflight.status, 204)
      })
    )

    it.effect(
      "a revoked refresh token and the access tokens of its grant stop working at once, at /token and at /mcp",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const flow = yield* authorizedCode()
          const first = json(yield* exchange(flow.browser, flow))
          const second = json(yield* refresh(flow.browser, flow.clientId, first.refresh_token))
          assert.strictEqual(yield* mcpStatus(first.access_token), 200)
          assert.strictEqual(yield* mcpStatus(second.access_token), 200)
          const reply = yield* revoke(flow.browser, {
            token: second.refresh_token,
            token_type_hint: "refresh_token",
            client_id: flow.clientId
          })
          assert.strictEqual(reply.status, 200, reply.text)
          assertNoStore(reply)
          // No clock moves: the very next requests are refused.
          assert.strictEqual(yield* mcpStatus(second.access_token), 401)
          assert.strictEqual(yield* mcpStatus(first.access_token), 401)
          assertOAuthError(yield* refresh(flow.browser, flow.clientId, second.refresh_token), 400, "invalid_grant")
          // Not even the grace retry of the token it replaced brings the grant back.
          assertOAuthError(yield* refresh(flow.browser, flow.clientId, first.refresh_token), 400, "invalid_grant")
        })
    )

    it.effect("a revoked access token stops working at /mcp at once; its refresh token still gets a new one", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const tokens = json(yield* exchange(flow.browser, flow))
        assert.strictEqual(yield* mcpStatus(tokens.access_token), 200)
        const reply = yield* revoke(flow.browser, { token: tokens.access_token, client_id: flow.clientId })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.strictEqual(yield* mcpStatus(tokens.access_token), 401)
        const renewed = json(yield* refresh(flow.browser, flow.clientId, tokens.refresh_token))
        assert.strictEqual(yield* mcpStatus(renewed.access_token), 200)
      })
    )

    it.effect("unknown, malformed and already revoked tokens answer 200; a missing token is invalid_request", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const tokens = json(yield* exchange(flow.browser, flow))
        for (const token of ["cbs_rt_unknown", "cbs_at_unknown", "not-a-token", "x".repeat(5000)]) {
          const reply = yield* revoke(flow.browser, { token, client_id: flow.clientId })
          assert.strictEqual(reply.status, 200, `${token.slice(0, 20)}: ${reply.text}`)
        }
        for (let i = 0; i < 2; i++) {
          const reply = yield* revoke(flow.browser, { token: tokens.refresh_token, client_id: flow.clientId })
          assert.strictEqual(reply.status, 200, reply.text)
        }
        assertOAuthError(yield* revoke(flow.browser, { client_id: flow.clientId }), 400, "invalid_request")
        assertOAuthError(yield* flow.browser.postJson("/revoke", { token: "x" }), 400, "invalid_request")
      })
    )

    it.effect("a token can be revoked only by its own client, which authenticates as at /token", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const tokens = json(yield* exchange(flow.browser, flow))
        const otherClient = yield* registerClient(flow.browser)
        const foreign = yield* revoke(flow.browser, { token: tokens.refresh_token, client_id: otherClient })
        assertOAuthError(foreign, 400, "unauthorized_client")
        assertOAuthError(yield* revoke(flow.browser, { token: tokens.refresh_token }), 401, "invalid_client")
        assertOAuthError(
          yield* revoke(flow.browser, { token: tokens.refresh_token, client_id: "nobody" }),
          401,
          "invalid_client"
        )
        // Nothing was revoked by the refused requests.
        assert.strictEqual(yield* mcpStatus(tokens.access_token), 200)

        const confidential = yield* confidentialCode("client_secret_basic")
        const issued = json(
          yield* confidential.browser.post("/token", confidential.fields, {
            authorization: basicAuth(confidential.client.client_id, confidential.client.client_secret)
          })
        )
        const withoutSecret = yield* revoke(confidential.browser, {
          token: issued.refresh_token,
          client_id: confidential.client.client_id
        })
        assertOAuthError(withoutSecret, 401, "invalid_client")
        assert.strictEqual(yield* mcpStatus(issued.access_token), 200)
        const revoked = yield* revoke(
          confidential.browser,
          { token: issued.refresh_token },
          { authorization: basicAuth(confidential.client.client_id, confidential.client.client_secret) }
        )
        assert.strictEqual(revoked.status, 200, revoked.text)
        assert.strictEqual(yield* mcpStatus(issued.access_token), 401)
      })
    )
  })

  describe("client authentication methods", () => {
    it.effect("a client registered for client_secret_basic may not send its secret in the body", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, client, fields } = yield* confidentialCode("client_secret_basic")
        const inBody = yield* browser.post("/token", {
          ...fields,
          client_id: client.client_id,
          client_secret: client.client_secret
        })
        assertOAuthError(inBody, 401, "invalid_client")
        assert.include(json(inBody).error_description, "client_secret_basic")
        const basic = yield* browser.post("/token", fields, {
          authorization: basicAuth(client.client_id, client.client_secret)
        })
        assert.strictEqual(basic.status, 200, basic.text)
      })
    )

    it.effect("a client registered for client_secret_post may not use the Authorization header", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, client, fields } = yield* confidentialCode("client_secret_post")
        const viaHeader = yield* browser.post("/token", fields, {
          authorization: basicAuth(client.client_id, client.client_secret)
        })
        assertOAuthError(viaHeader, 401, "invalid_client")
        assert.include(json(viaHeader).error_description, "client_secret_post")
        const inBody = yield* browser.post("/token", {
          ...fields,
          client_id: client.client_id,
          client_secret: client.client_secret
        })
        assert.strictEqual(inBody.status, 200, inBody.text)
      })
    )

    it.effect("a public client (none) may send no secret, in the body or in a Basic header", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const withSecret = yield* exchange(flow.browser, flow, { client_secret: "anything" })
        assertOAuthError(withSecret, 401, "invalid_client")
        assert.include(json(withSecret).error_description, "public client")
        const { client_id: _, ...fields } = {
          grant_type: "authorization_code",
          code: flow.code,
          redirect_uri: REDIRECT_URI,
          client_id: flow.clientId,
          code_verifier: flow.pkce.verifier
        }
        const viaHeader = yield* flow.browser.post("/token", fields, {
          authorization: basicAuth(flow.clientId, "anything")
        })
        assertOAuthError(viaHeader, 401, "invalid_client")
        // Client authentication failed before the code was looked at, so it still works.
        assert.strictEqual((yield* exchange(flow.browser, flow)).status, 200)
      })
    )
  })

  describe("storage", () => {
    it.effect("codes, tokens, sessions and client secrets are stored only as hashes", () =>
      Effect.gen(function* () {
        yield* startClock
        const flow = yield* authorizedCode()
        const tokens = json(yield* exchange(flow.browser, flow))
        const rotated = json(yield* refresh(flow.browser, flow.clientId, tokens.refresh_token))
        const secret = json(
          yield* flow.browser.postJson("/register", { client_name: "Confidential", redirect_uris: [REDIRECT_URI] })
        ).client_secret
        const secrets = [
          flow.code,
          tokens.access_token,
          tokens.refresh_token,
          rotated.access_token,
          rotated.refresh_token,
          flow.browser.jar.get("cbs_session")!,
          secret
        ]
        const sql = yield* SqlClient.SqlClient
        const tables = yield* sql<{ table_name: string }>`
          select table_name from information_schema.tables
          where table_schema = 'public' and table_type = 'BASE TABLE'`.pipe(Effect.orDie)
        assert.isAbove(tables.length, 5)
        for (const { table_name } of tables) {
          const rows = yield* sql<{
            dump: string | null
          }>`select string_agg(t::text, ' ') as dump from ${sql(table_name)} t`.pipe(Effect.orDie)
          const dump = rows[0]?.dump ?? ""
          for (const value of secrets) {
            assert.notInclude(dump, value, `${table_name} holds a secret in clear`)
            assert.notInclude(dump, value.slice(7, 30), `${table_name} holds part of a secret in clear`)
          }
        }
        const stored = yield* sql<{ n: number }>`select count(*)::int as n from oauth_access_tokens`.pipe(Effect.orDie)
        assert.isAbove(stored[0]!.n, 0)
      })
    )
  })

  describe("two instances", () => {
    it.effect("registration on one instance, sign-in and consent on another, the token on the first", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser: first, resource, base } = yield* context
        const second = makeBrowser((yield* SecondServer).baseUrl)
        const clientId = yield* registerClient(first)
        const user = yield* makeUser
        const pkce = pkcePair()
        const path = `/authorize?${authorizeQuery({ clientId, challenge: pkce.challenge, resource })}`
        const consent = yield* signInThrough(second, path, user.email)
        assert.strictEqual(consent.status, 200, consent.text)
        const back = yield* allow(second, consent)
        assert.strictEqual(paramsOf(back.location).get("iss"), base)
        const code = paramsOf(back.location).get("code")!
        const reply = yield* exchange(first, { clientId, code, pkce }, { resource })
        assert.strictEqual(reply.status, 200, reply.text)
        const tokens = json(reply)
        const renewed = yield* refresh(second, clientId, tokens.refresh_token)
        assert.strictEqual(renewed.status, 200, renewed.text)
        assert.strictEqual(Option.getOrUndefined(yield* verify(json(renewed).access_token))?.id, user.userId)
      })
    )
  })
})

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/ and, when the public base URL is https, Secure", () => {
    const [header = ""] = Cookies.toSetCookieHeaders(
      withSessionCookie(HttpServerResponse.empty(), "cbs_s_x", true).cookies
    )
    assert.match(header, /^cbs_session=cbs_s_x;/)
    assert.match(header, /; HttpOnly/)
    assert.match(header, /; SameSite=Lax/)
    assert.match(header, /; Path=\//)
    assert.match(header, /; Secure/)
  })
})
