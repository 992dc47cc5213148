// @tags: runtime
import { Cookies, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { withSessionCookie } from "../src/SignIn/Cookies.js"
import { hiddenField, makeBrowser, REDIRECT_URI } from "./support/McpClient.js"
import {
  allow,
  atConsent,
  authorizedCode,
  authorizeStart,
  exchange,
  json,
  makeUser,
  paramsOf,
  publicBaseOf,
  refresh,
  signInThrough,
  startClock,
  verify
} from "./support/OAuthFlow.js"
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

layer(ServersLive)("OAuth authorization server", (it) => {
  describe("CSRF and sessions", () => {
    it.effect("a consent POST with a missing or wrong CSRF token is refused with 403 and redirects nowhere", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, app, path, consent } = yield* atConsent()
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
        const { browser, consent } = yield* atConsent()
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
        const { browser, path, consent } = yield* atConsent()
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
        const { browser: first, resource, base, clientId, user, pkce, path } = yield* authorizeStart()
        const second = makeBrowser((yield* SecondServer).baseUrl)
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
