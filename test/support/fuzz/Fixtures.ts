import { randomBytes } from "node:crypto"
import { assert } from "@effect/vitest"
import { Clock, Effect, TestClock } from "effect"
import { s256 } from "../../../src/OAuth/Pkce.js"
import { allowInBrowser, hiddenField, makeBrowser, submitSignIn } from "../McpClient.js"
import { postRegistration } from "../OAuthFlow.js"
import { TestApp } from "../TestServer.js"
import { PASSWORD } from "../WebPages.js"
import type { ApiFixtures } from "./ApiRequests.js"
import type { OAuthFixtures } from "./OAuthRequests.js"
import type { SignInFixtures } from "./SignInRequests.js"

// What the fuzz requests are made of: accounts, ids, keys, OAuth clients, codes, tokens, sessions and form tokens.

/**
 * Under `layer(...)` the server runs on the test clock, which stands still. Each test starts at the real time or
 * later, an hour past where the previous one left it.
 */
export const startClock = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  yield* TestClock.setTime(Math.max(Date.now(), now + 60 * 60_000))
})

const PARTNER_LINK = '<a data-service-protected="backlink" href="https://partner.example/">our partner</a>'
const ARTICLE_BODY = `<p>Read about ${PARTNER_LINK} today.</p><p>Second paragraph with <b>bold</b> text.</p>`

/** An account (with a password) with a website, two articles and a backlink; another account's; an admin. */
export const accountFixtures = Effect.gen(function* () {
  const app = yield* TestApp
  const email = `fuzz-${randomBytes(4).toString("hex")}@example.com`
  const own = yield* app.makeAccount({ email, password: PASSWORD })
  const admin = yield* app.makeAccount({ admin: true })
  const other = yield* app.makeAccount()
  const site = yield* app.makeSite(own.accountId)
  const article = yield* app.makeArticle(site, { body: ARTICLE_BODY })
  const draft = yield* app.makeArticle(site, { status: "draft", published_at: null })
  yield* app.makeBacklink(site)
  const foreignSite = yield* app.makeSite(other.accountId)
  const foreignArticle = yield* app.makeArticle(foreignSite)
  const port = new URL(app.baseUrl).port
  return {
    app,
    email,
    origin: `http://localhost:${port}`,
    api: {
      siteIds: [site],
      articleIds: [article, draft],
      foreignIds: [foreignSite, foreignArticle],
      key: own.key,
      adminKey: admin.key,
      bodyText: ["Read about", "Second paragraph", "<b>bold</b>", PARTNER_LINK, "our partner", "e"]
    } satisfies ApiFixtures
  }
})

export const getJson = (path: string) =>
  Effect.flatMap(TestApp, (app) =>
    app.fetch(path).pipe(Effect.flatMap((res) => Effect.promise(() => res.json() as Promise<unknown>)))
  )

/** A client registered with `metadata`; its id and secret (if confidential). */
const register = (metadata: Record<string, unknown>) =>
  Effect.gen(function* () {
    const { status, body } = yield* postRegistration(metadata)
    assert.strictEqual(status, 201, JSON.stringify(body))
    return body as { client_id: string; client_secret?: string }
  })

const REDIRECT_URI = "http://127.0.0.1:33418/callback"

/** Two registered clients, a signed-in browser, an unused code, a refresh token. */
export const oauthFixtures = Effect.gen(function* () {
  const { app, email, origin } = yield* accountFixtures
  const publicClient = yield* register({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" })
  const confidential = yield* register({ redirect_uris: [REDIRECT_URI], client_name: "Fuzz confidential" })
  const verifier = randomBytes(48).toString("base64url")
  const authorizeUrl = new URL("/authorize", origin)
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: publicClient.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: s256(verifier),
    code_challenge_method: "S256",
    state: "fuzz"
  })) {
    authorizeUrl.searchParams.set(name, value)
  }
  const browser = makeBrowser(app.baseUrl)
  const user = { email, password: PASSWORD }
  const first = yield* allowInBrowser(browser, authorizeUrl, user)
  const exchanged = yield* app.fetch("/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: publicClient.client_id,
      code: first.params.get("code") ?? "",
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier
    }).toString()
  })
  const tokens = (yield* Effect.promise(() => exchanged.json())) as { refresh_token: string }
  assert.strictEqual(exchanged.status, 200, JSON.stringify(tokens))
  const second = yield* allowInBrowser(makeBrowser(app.baseUrl), authorizeUrl, user)
  const consent = yield* browser.get(authorizeUrl)
  assert.strictEqual(consent.status, 200, consent.text)
  return {
    app,
    oauth: {
      publicClientId: publicClient.client_id,
      confidentialClientId: confidential.client_id,
      confidentialSecret: confidential.client_secret ?? "",
      redirectUri: REDIRECT_URI,
      resource: `${origin}/mcp`,
      refreshToken: tokens.refresh_token,
      code: second.params.get("code") ?? "",
      codeVerifier: verifier,
      sessionCookie: `cbs_session=${browser.jar.get("cbs_session") ?? ""}`,
      sessionCsrf: hiddenField(consent.text, "csrf") ?? "",
      origin
    } satisfies OAuthFixtures
  }
})

/** The sign-in form's pre-session and token, and another browser's session. */
export const signInFixtures = Effect.gen(function* () {
  const { app, email, origin } = yield* accountFixtures
  const form = makeBrowser(app.baseUrl)
  const page = yield* form.get("/signin")
  const signedIn = makeBrowser(app.baseUrl)
  const reply = yield* submitSignIn(signedIn, { email, password: PASSWORD })
  assert.strictEqual(reply.status, 303, reply.text)
  const home = yield* signedIn.get("/signin")
  return {
    app,
    signIn: {
      email,
      password: PASSWORD,
      preSession: form.jar.get("cbs_signin") ?? "",
      csrf: hiddenField(page.text, "csrf") ?? "",
      sessionCookie: signedIn.jar.get("cbs_session") ?? "",
      sessionCsrf: hiddenField(home.text, "csrf") ?? "",
      origin
    } satisfies SignInFixtures
  }
})
