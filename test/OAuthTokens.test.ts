// @tags: runtime
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import {
  assertNoStore,
  assertOAuthError,
  authorizedCode,
  basicAuth,
  confidentialCode,
  context,
  exchange,
  exchangeFields,
  issuedTokens,
  json,
  mcpStatus,
  pkcePair,
  preflightPost,
  refresh,
  registerClient,
  revoke,
  startClock,
  tokenRequest,
  verify
} from "./support/OAuthFlow.js"
import { TestServerLive } from "./support/TestServer.js"

type Flow = Effect.Effect.Success<ReturnType<typeof authorizedCode>>

layer(TestServerLive)("OAuth authorization server", (it) => {
  describe("token endpoint", () => {
    const refusedExchanges: ReadonlyArray<readonly [string, (flow: Flow) => ReturnType<typeof tokenRequest>, string]> =
      [
        [
          "a wrong code_verifier",
          (flow) => exchange(flow.browser, flow, { code_verifier: pkcePair().verifier }),
          "invalid_grant"
        ],
        [
          "a redirect_uri other than the authorization request's",
          (flow) => exchange(flow.browser, flow, { redirect_uri: "http://127.0.0.1:33418/other" }),
          "invalid_grant"
        ],
        [
          "a missing code_verifier",
          (flow) => {
            const { code_verifier: _, ...fields } = exchangeFields(flow)
            return tokenRequest(flow.browser, fields)
          },
          "invalid_request"
        ],
        [
          "a resource other than the code's",
          (flow) => exchange(flow.browser, flow, { resource: "https://other.example/mcp" }),
          "invalid_target"
        ]
      ]
    for (const [label, send, error] of refusedExchanges) {
      it.effect(`${label} is ${error}, with no-store`, () =>
        Effect.gen(function* () {
          yield* startClock
          const reply = yield* send(yield* authorizedCode())
          assertOAuthError(reply, 400, error)
          assertNoStore(reply)
        })
      )
    }

    it.effect("a code presented again is invalid_grant, and the tokens issued from it stop working", () =>
      Effect.gen(function* () {
        const { flow, tokens: first } = yield* issuedTokens
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
        const { flow, tokens: first } = yield* issuedTokens
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
        const { flow, tokens: first } = yield* issuedTokens
        const rotated = json(yield* refresh(flow.browser, flow.clientId, first.refresh_token))
        yield* TestClock.adjust("31 seconds")
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, first.refresh_token), 400, "invalid_grant")
        assert.isTrue(Option.isNone(yield* verify(rotated.access_token)))
        assertOAuthError(yield* refresh(flow.browser, flow.clientId, rotated.refresh_token), 400, "invalid_grant")
      })
    )

    it.effect("a refresh token works only for its own client", () =>
      Effect.gen(function* () {
        const { flow, tokens: first } = yield* issuedTokens
        const otherClient = yield* registerClient(flow.browser)
        assertOAuthError(yield* refresh(flow.browser, otherClient, first.refresh_token), 400, "invalid_grant")
        assert.strictEqual((yield* refresh(flow.browser, flow.clientId, first.refresh_token)).status, 200)
      })
    )

    it.effect("an access token no longer verifies once its lifetime has passed", () =>
      Effect.gen(function* () {
        const { flow, tokens } = yield* issuedTokens
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
        const { browser, client, fields } = yield* confidentialCode()
        assert.strictEqual(client.token_endpoint_auth_method, "client_secret_basic")
        assert.match(client.client_secret, /^cbs_cs_/)
        const wrong = yield* browser.post("/token", fields, {
          authorization: basicAuth(client.client_id, "cbs_cs_wrong")
        })
        assertOAuthError(wrong, 401, "invalid_client")
        const noSecret = yield* browser.post("/token", { ...fields, client_id: client.client_id })
        assertOAuthError(noSecret, 401, "invalid_client")
        // The failed attempts did not reach the code: client authentication comes first.
        const right = yield* browser.post("/token", fields, {
          authorization: basicAuth(client.client_id, client.client_secret)
        })
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
        assert.strictEqual((yield* preflightPost(browser, "/revoke")).status, 204)
      })
    )

    it.effect(
      "a revoked refresh token and the access tokens of its grant stop working at once, at /token and at /mcp",
      () =>
        Effect.gen(function* () {
          const { flow, tokens: first } = yield* issuedTokens
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
        const { flow, tokens } = yield* issuedTokens
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
        const { flow, tokens } = yield* issuedTokens
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
        const { flow, tokens } = yield* issuedTokens
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
        const { client_id: _, ...fields } = exchangeFields(flow)
        const viaHeader = yield* flow.browser.post("/token", fields, {
          authorization: basicAuth(flow.clientId, "anything")
        })
        assertOAuthError(viaHeader, 401, "invalid_client")
        // Client authentication failed before the code was looked at, so it still works.
        assert.strictEqual((yield* exchange(flow.browser, flow)).status, 200)
      })
    )
  })
})
