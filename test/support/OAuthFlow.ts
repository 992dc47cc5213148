import { createHash, randomBytes } from "node:crypto"
import { assert } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { Accounts } from "../../src/Auth/Accounts.js"
import { Limits } from "../../src/Limits/Limits.js"
import { AccessTokens } from "../../src/OAuth/AccessTokens.js"
import { type Browser, hiddenField, makeBrowser, postRpc, REDIRECT_URI, type Reply, toolsList } from "./McpClient.js"
import { TestApp } from "./TestServer.js"
import { PASSWORD } from "./WebPages.js"

// ---------------------------------------------------------------------------------------------------------------
// A browser (McpClient.ts) and what to read off its replies.

/**
 * The test server has no PUBLIC_BASE_URL, so it names itself after the loopback address a request used; these tests
 * use http://localhost:<port> throughout, as a client given that address would.
 */
export const publicBaseOf = (baseUrl: string) => `http://localhost:${new URL(baseUrl).port}`

export const json = (reply: Reply) => JSON.parse(reply.text)

/** The query parameters of a redirect's Location. */
export const paramsOf = (location: string | undefined) => new URL(location ?? "http://invalid/").searchParams

// ---------------------------------------------------------------------------------------------------------------
// Flow helpers.

export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** The test's "now": under `layer(...)` the server runs on the test's clock, which starts at the epoch. */
export const startClock = TestClock.setTime(Date.now())

export const context = Effect.gen(function* () {
  const app = yield* TestApp
  const base = publicBaseOf(app.baseUrl)
  return { app, base, resource: `${base}/mcp`, browser: makeBrowser(base) }
})

/** Registers a public client; its client_id. */
export const registerClient = (browser: Browser, metadata: Record<string, unknown> = {}) =>
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

/** POST /register with `metadata` as JSON, as a client registers itself: the status and the JSON answer. */
export const postRegistration = (metadata: Record<string, unknown>) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch("/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(metadata)
    })
    return { status: res.status, body: (yield* Effect.promise(() => res.json())) as Record<string, unknown> }
  })

/** A user with a password; its e-mail, user id and account id. */
export const makeUser = Effect.gen(function* () {
  const app = yield* TestApp
  const accounts = yield* Accounts
  const email = `oauth-${randomBytes(4).toString("hex")}@example.com`
  const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
  const row = Option.getOrThrow(yield* accounts.findByEmail(email))
  return { email, accountId, userId: row.user_id }
})

export const authorizeQuery = (options: {
  readonly clientId: string
  readonly challenge: string
  readonly resource: string
  readonly extra?: Record<string, string> | undefined
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
export const signInThrough = (browser: Browser, authorizePath: string, email: string, password = PASSWORD) =>
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
export const allow = (browser: Browser, consent: Reply, decision = "allow") =>
  browser.post("/authorize", {
    query: hiddenField(consent.text, "query") ?? "",
    csrf: hiddenField(consent.text, "csrf") ?? "",
    decision
  })

/** The start of a flow: a registered client (`metadata` added to the usual), a user, and its authorize path. */
export const authorizeStart = (
  options: { readonly metadata?: Record<string, unknown>; readonly extra?: Record<string, string> } = {}
) =>
  Effect.gen(function* () {
    const { app, browser, resource, base } = yield* context
    const clientId = yield* registerClient(browser, options.metadata)
    const user = yield* makeUser
    const pkce = pkcePair()
    const query = authorizeQuery({ clientId, challenge: pkce.challenge, resource, extra: options.extra })
    return { app, browser, base, resource, clientId, user, pkce, path: `/authorize?${query}` }
  })

/** As `authorizeStart`, then signed in through the form: the consent page (`consent`). */
export const atConsent = (options: Parameters<typeof authorizeStart>[0] = {}) =>
  Effect.gen(function* () {
    const start = yield* authorizeStart(options)
    const consent = yield* signInThrough(start.browser, start.path, start.user.email)
    return { ...start, consent }
  })

/** Everything up to an authorization code: client, user, sign-in, Allow. */
export const authorizedCode = (options: { readonly extra?: Record<string, string> } = {}) =>
  Effect.gen(function* () {
    const { consent, ...flow } = yield* atConsent(options)
    assert.strictEqual(consent.status, 200, consent.text)
    const back = yield* allow(flow.browser, consent)
    assert.strictEqual(back.status, 302, back.text)
    const code = paramsOf(back.location).get("code")!
    return { ...flow, code, redirect: back }
  })

export const tokenRequest = (browser: Browser, fields: Record<string, string>) => browser.post("/token", fields)

interface CodeFlow {
  readonly clientId: string
  readonly code: string
  readonly pkce: { readonly verifier: string }
}

/** The fields of the authorization_code grant for a flow's code. */
export const exchangeFields = (flow: CodeFlow) => ({
  grant_type: "authorization_code",
  code: flow.code,
  redirect_uri: REDIRECT_URI,
  client_id: flow.clientId,
  code_verifier: flow.pkce.verifier
})

export const exchange = (browser: Browser, flow: CodeFlow, overrides: Record<string, string> = {}) =>
  tokenRequest(browser, { ...exchangeFields(flow), ...overrides })

export const refresh = (browser: Browser, clientId: string, refreshToken: string) =>
  tokenRequest(browser, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId })

/** The test's start, an authorization code and the tokens exchanged for it. */
export const issuedTokens = Effect.gen(function* () {
  yield* startClock
  const flow = yield* authorizedCode()
  const tokens = json(yield* exchange(flow.browser, flow))
  return { flow, tokens }
})

/** The credential an access token carries now, if it is live (finding it counts a request of its user). */
export const verify = (token: string) =>
  Effect.gen(function* () {
    const tokens = yield* AccessTokens
    const window = yield* Effect.flatMap(Limits, (limits) => limits.currentWindow)
    return Option.map(yield* tokens.verifyCounting(token, window), (found) => found.credential)
  })

export const assertOAuthError = (reply: Reply, status: number, error: string) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
  const body = json(reply)
  assert.strictEqual(body.error, error, reply.text)
  assert.isString(body.error_description)
}

export const assertNoStore = (reply: Reply) => {
  assert.strictEqual(reply.headers.get("cache-control"), "no-store")
  assert.strictEqual(reply.headers.get("pragma"), "no-cache")
}

export const revoke = (browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  browser.post("/revoke", fields, headers)

/** Basic client credentials (RFC 6749 §2.3.1). */
export const basicAuth = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The status of a tools/list at /mcp with this bearer token (200, or 401 once the token no longer works). */
export const mcpStatus = (token: string) =>
  Effect.gen(function* () {
    const { app } = yield* context
    return (yield* postRpc(`${app.baseUrl}/mcp`, token, toolsList)).status
  })

/** A CORS preflight of a POST from another origin. */
export const preflightPost = (browser: Browser, path: string) =>
  browser.send(path, {
    method: "OPTIONS",
    headers: { origin: "https://client.example", "access-control-request-method": "POST" }
  })

/**
 * A confidential client registered for `method` (the default when undefined), with its secret, taken through sign-in
 * and Allow to a code; the registration's answer (`client`) and the grant's fields without client credentials.
 */
export const confidentialCode = (method?: "client_secret_basic" | "client_secret_post") =>
  Effect.gen(function* () {
    const { browser, resource } = yield* context
    const registered = yield* browser.postJson("/register", {
      client_name: "Server app",
      redirect_uris: [REDIRECT_URI],
      ...(method === undefined ? {} : { token_endpoint_auth_method: method })
    })
    assert.strictEqual(registered.status, 201, registered.text)
    const client = json(registered) as { client_id: string; client_secret: string; token_endpoint_auth_method: string }
    const user = yield* makeUser
    const pkce = pkcePair()
    const path = `/authorize?${authorizeQuery({ clientId: client.client_id, challenge: pkce.challenge, resource })}`
    const back = yield* allow(browser, yield* signInThrough(browser, path, user.email))
    const code = paramsOf(back.location).get("code")!
    const { client_id: _, ...fields } = exchangeFields({ clientId: client.client_id, code, pkce })
    return { browser, client, fields }
  })
