// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { clockStarts } from "./support/Clock.js"
import { postRpc, postWithHost, toolsList } from "./support/McpClient.js"
import { mcpAddress, newMcpUser, sharedMcpUser } from "./support/McpSession.js"
import { TestServerLive } from "./support/TestServer.js"
import { toolNames } from "./support/Tools.js"

/** Each test starts a minute past the previous test's start: no two share a request-limit window. */
const startClock = clockStarts("61 seconds")
const sharedSession = sharedMcpUser()

layer(TestServerLive)("MCP interface", (it) => {
  describe("authentication and transport", () => {
    it.effect("without a token /mcp answers 401 with WWW-Authenticate naming the resource metadata and the scope", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, base, mcpUrl } = yield* mcpAddress
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
        const { mcpUrl } = yield* mcpAddress
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
        const { mcpUrl } = yield* mcpAddress
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
        const { app } = yield* mcpAddress
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
        const { app, base } = yield* mcpAddress
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
        const { mcpUrl } = yield* mcpAddress
        const session = yield* sharedSession
        const reply = yield* postRpc(mcpUrl, session.token, toolsList)
        assert.strictEqual(reply.status, 200, reply.text)
        assert.isNull(reply.headers.get("mcp-session-id"))
        const names = JSON.parse(reply.text).result.tools.map((tool: { name: string }) => tool.name)
        assert.deepStrictEqual(names.sort(), toolNames)
      })
    )

    it.effect("requests whose params the SDK's schema refuses are -32602 Invalid params, never -32603", () =>
      Effect.gen(function* () {
        yield* startClock
        const { mcpUrl } = yield* mcpAddress
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
        const { mcpUrl } = yield* mcpAddress
        const session = yield* newMcpUser
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
})
