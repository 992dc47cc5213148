import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { hashSecret } from "../src/Auth/Secrets.js"
import { makeBrowser, postRpc, signInWithSdk, toolsList } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { PASSWORD, signedInAccount } from "./support/WebPages.js"

/**
 * Refused credentials: an API key or an MCP access token that was sent and refused is told why (unknown, revoked,
 * expired), in the message and in the challenge's `error_description`; and more than 100 refused credentials in a
 * minute from one client address are 429 `rate_limited` with Retry-After, while valid credentials from that address
 * go on working. Every request here comes from 127.0.0.1; each test sets a minute of its own on the service's clock,
 * so that the failures of one test are not counted in another's window.
 */

const atMinute = (minute: number) =>
  TestClock.setTime(Date.parse(`2026-11-21T10:${String(minute).padStart(2, "0")}:30Z`))

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Record<string, unknown>
}

const answerOf = (res: Response) =>
  Effect.map(
    Effect.promise(() => res.json()),
    (body): Answer => ({ status: res.status, headers: res.headers, body: body as Record<string, unknown> })
  )

/** `GET /api/v1/sites` with `headers`. */
const listSites = (headers: Record<string, string>) =>
  Effect.flatMap(TestApp, (app) => Effect.flatMap(app.fetch("/api/v1/sites", { headers }), answerOf))

/** A POST of tools/list to /mcp with `token` as the bearer token. */
const mcpList = (token: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const reply = yield* postRpc(`${app.baseUrl}/mcp`, token, toolsList)
    return { status: reply.status, headers: reply.headers, body: JSON.parse(reply.text) as Record<string, unknown> }
  })

/** The challenge's `error_description`, if it has one. */
const errorDescription = (headers: Headers) =>
  /error_description="([^"]*)"/.exec(headers.get("www-authenticate") ?? "")?.[1]

const assertRefused = (answer: Answer, says: RegExp) => {
  assert.strictEqual(answer.status, 401, JSON.stringify(answer.body))
  assert.strictEqual(answer.body["error"], "unauthorized")
  assert.match(String(answer.body["message"]), says)
  assert.include(answer.headers.get("www-authenticate") ?? "", 'error="invalid_token"')
  assert.strictEqual(errorDescription(answer.headers), answer.body["message"])
}

/** A signed-in assistant's connection: its access token, refresh token and client id. */
const assistant = Effect.gen(function* () {
  const { app, email } = yield* signedInAccount()
  const { provider, accessToken } = yield* signInWithSdk({
    mcpUrl: `${app.baseUrl}/mcp`,
    browser: makeBrowser(app.baseUrl),
    user: { email, password: PASSWORD },
    access: "edit"
  })
  return { accessToken, refreshToken: provider.tokens()!.refresh_token!, clientId: provider.client!.client_id }
})

/** `POST /revoke` of `token` by the client it was issued to. */
const revoke = (token: string, clientId: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch("/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, client_id: clientId }).toString()
    })
    assert.strictEqual(res.status, 200)
  })

const wrongKey = (n: number) => `cbs_wrong_${String(n).padStart(40, "0")}`
const wrongToken = (n: number) => `cbs_at_wrong_${String(n).padStart(40, "0")}`

layer(TestServerLive)("refused credentials", (it) => {
  describe("a refused credential is told why", () => {
    it.effect("an unknown API key is 401 saying it is unknown, in the message and the challenge", () =>
      Effect.gen(function* () {
        yield* atMinute(1)
        for (const headers of [
          { authorization: `Bearer ${wrongKey(1)}` },
          { "x-api-key": wrongKey(2) },
          { "x-api-key": "nonsense" }
        ]) {
          const answer = yield* listSites(headers)
          assertRefused(answer, /unknown/)
          assert.notMatch(String(answer.body["message"]), /revoked|expired/)
        }
      })
    )

    it.effect("a revoked API key is 401 saying it has been revoked, whichever header carries it", () =>
      Effect.gen(function* () {
        yield* atMinute(2)
        const app = yield* TestApp
        const { key, accountId } = yield* app.makeAccount()
        assert.strictEqual((yield* listSites({ "x-api-key": key })).status, 200)
        const keys = yield* ApiKeys
        const [row] = yield* keys.list(accountId)
        yield* keys.revoke(row!.id)
        for (const headers of [{ authorization: `Bearer ${key}` }, { "x-api-key": key }]) {
          const answer = yield* listSites(headers)
          assertRefused(answer, /has been revoked/)
        }
      })
    )

    it.effect("an access token revoked on its own, or with its grant, is 401 saying it has been revoked", () =>
      Effect.gen(function* () {
        yield* atMinute(3)
        const alone = yield* assistant
        assert.strictEqual((yield* mcpList(alone.accessToken)).status, 200)
        yield* revoke(alone.accessToken, alone.clientId)
        assertRefused(yield* mcpList(alone.accessToken), /access token has been revoked/)

        const withGrant = yield* assistant
        yield* revoke(withGrant.refreshToken, withGrant.clientId)
        const answer = yield* mcpList(withGrant.accessToken)
        assertRefused(answer, /access token has been revoked/)
        // The challenge still points to the metadata, so that the client can sign in again.
        assert.include(answer.headers.get("www-authenticate") ?? "", "resource_metadata=")
      })
    )

    it.effect("an expired access token is 401 saying it has expired; an unknown one that it is unknown", () =>
      Effect.gen(function* () {
        yield* atMinute(4)
        const { accessToken } = yield* assistant
        const sql = yield* SqlClient.SqlClient
        yield* sql`update oauth_access_tokens set expires_at = created_at where token_hash = ${hashSecret(accessToken)}`
        assertRefused(yield* mcpList(accessToken), /access token has expired/)
        const unknown = yield* mcpList(wrongToken(1))
        assertRefused(unknown, /access token is unknown/)
        assert.notMatch(String(unknown.body["message"]), /revoked|expired/)
        // No token at all is no refusal: the challenge has no error, only where to sign in.
        const app = yield* TestApp
        const none = yield* postRpc(`${app.baseUrl}/mcp`, undefined, toolsList)
        assert.strictEqual(none.status, 401)
        assert.notInclude(none.headers.get("www-authenticate") ?? "", "error=")
      })
    )
  })

  describe("more than 100 failed authentications a minute from one client address", () => {
    it.effect(
      "the 101st wrong API key is 429 rate_limited with Retry-After; a valid key from the same address is still 200",
      () =>
        Effect.gen(function* () {
          yield* atMinute(10)
          const app = yield* TestApp
          const { key } = yield* app.makeAccount()
          for (let n = 1; n <= 100; n++) {
            const answer = yield* listSites({ "x-api-key": wrongKey(n) })
            assert.strictEqual(answer.status, 401, `wrong key ${n}`)
          }
          const over = yield* listSites({ "x-api-key": wrongKey(101) })
          assert.strictEqual(over.status, 429, JSON.stringify(over.body))
          assert.strictEqual(over.body["error"], "rate_limited")
          assert.strictEqual(over.body["limit"], 100)
          assert.match(String(over.body["message"]), /failed authentications/)
          const retryAfter = Number(over.headers.get("retry-after"))
          assert.isAtLeast(retryAfter, 1)
          assert.isAtMost(retryAfter, 60)
          // A valid key is never counted as a failure, nor held back by them.
          const valid = yield* listSites({ authorization: `Bearer ${key}` })
          assert.strictEqual(valid.status, 200, JSON.stringify(valid.body))
          assert.strictEqual((yield* listSites({ "x-api-key": wrongKey(102) })).status, 429)
          // Once the minute is over, a wrong key is a plain 401 again.
          yield* TestClock.adjust(`${retryAfter} seconds`)
          assertRefused(yield* listSites({ "x-api-key": wrongKey(103) }), /unknown/)
        })
    )

    it.effect("wrong MCP bearer tokens count with wrong API keys; the 101st is 429, a valid token still works", () =>
      Effect.gen(function* () {
        yield* atMinute(20)
        const { accessToken } = yield* assistant
        for (let n = 1; n <= 50; n++) assert.strictEqual((yield* listSites({ "x-api-key": wrongKey(n) })).status, 401)
        for (let n = 1; n <= 50; n++) assert.strictEqual((yield* mcpList(wrongToken(n))).status, 401)
        const over = yield* mcpList(wrongToken(51))
        assert.strictEqual(over.status, 429, JSON.stringify(over.body))
        assert.strictEqual(over.body["error"], "rate_limited")
        assert.strictEqual(over.body["limit"], 100)
        assert.isAtLeast(Number(over.headers.get("retry-after")), 1)
        assert.strictEqual((yield* listSites({ "x-api-key": wrongKey(51) })).status, 429)
        const valid = yield* mcpList(accessToken)
        assert.strictEqual(valid.status, 200, JSON.stringify(valid.body))
      })
    )
  })
})
