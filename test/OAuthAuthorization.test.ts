// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { hiddenField, REDIRECT_URI } from "./support/McpClient.js"
import {
  allow,
  assertNoStore,
  assertOAuthError,
  atConsent,
  authorizedCode,
  authorizeQuery,
  authorizeStart,
  context,
  exchange,
  json,
  paramsOf,
  pkcePair,
  registerClient,
  signInThrough,
  startClock,
  tokenRequest,
  verify
} from "./support/OAuthFlow.js"
import { TestServerLive } from "./support/TestServer.js"
import { PASSWORD } from "./support/WebPages.js"

layer(TestServerLive)("OAuth authorization server", (it) => {
  describe("authorization", () => {
    it.effect("signed out, /authorize leads to the sign-in form; a wrong password is refused with a message", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, user, path } = yield* authorizeStart()
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
          const { user, consent } = yield* atConsent({ metadata: { client_name: "Claude <Test> & Co" } })
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
          canWrite: body.scope.split(" ").includes("content:write"),
          clientId: flow.clientId
        })
        assert.isTrue(Option.isNone(yield* verify("cbs_at_unknown")))
        assert.isTrue(Option.isNone(yield* verify(body.refresh_token)))
      })
    )

    it.effect("Deny redirects with error=access_denied, the same state and iss", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, base, consent } = yield* atConsent()
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
        const { browser, resource, clientId, pkce, consent } = yield* atConsent({
          extra: { redirect_uri: "http://127.0.0.1:50123/callback" }
        })
        assert.strictEqual(consent.status, 200)
        const back = yield* allow(browser, consent)
        assert.isTrue(back.location!.startsWith("http://127.0.0.1:50123/callback?code="))
        const otherPath = authorizeQuery({
          clientId,
          challenge: pkce.challenge,
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
          const { browser, resource, clientId, pkce, user, path } = yield* authorizeStart({
            extra: { state: "s".repeat(2_048) }
          })
          const accepted = yield* browser.get(path)
          assert.notInclude(accepted.location ?? "", "error=", accepted.location)
          const extra = { state: "s".repeat(2_049) }
          const tooLong = authorizeQuery({ clientId, challenge: pkce.challenge, resource, extra })
          const refusedByGet = yield* browser.get(`/authorize?${tooLong}`)
          const consent = yield* signInThrough(browser, path, user.email)
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
        const uri = "https://client.example/€"
        const extra = { redirect_uri: uri }
        const { browser, resource, clientId, user, pkce, path } = yield* authorizeStart({
          metadata: { redirect_uris: [uri] },
          extra
        })
        const refused = yield* browser.get(
          `/authorize?${authorizeQuery({ clientId, challenge: pkce.challenge, resource, extra: { ...extra, code_challenge_method: "plain" } })}`
        )
        assert.strictEqual(refused.status, 302, refused.text)
        assert.isTrue(refused.location!.startsWith("https://client.example/%E2%82%AC?error=invalid_request&"))
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
})
