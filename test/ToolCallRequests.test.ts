// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, TestClock } from "effect"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { clockStarts } from "./support/Clock.js"
import { postRpc, postRpcText, toolsCall, toolsList } from "./support/McpClient.js"
import { newMcpSession } from "./support/McpSession.js"
import { TestServerLive } from "./support/TestServer.js"

const LIMIT = 60

/**
 * The test's "now": the server runs on the test clock, which stands still. Each test starts at least a minute after
 * the previous one, so that no two tests share a request-limit window.
 */
const startClock = clockStarts("61 seconds")

/** One call of list_sites, as a JSON-RPC message. */
const LIST_SITES = toolsCall("list_sites", {})

/** The test's start: a new signed-in user with a website, and its POSTs to /mcp with its token. */
const newSession = Effect.gen(function* () {
  yield* startClock
  const session = yield* newMcpSession
  const post = (message: unknown, headers?: Record<string, string>) =>
    postRpc(session.mcpUrl, session.token, message, headers)
  const postText = (text: string) => postRpcText(session.mcpUrl, session.token, text)
  return { ...session, post, postText, listSites: session.callTool("list_sites", {}) }
})

type Session = Effect.Effect.Success<typeof newSession>

/** A test that starts with its own new session. */
const inSession =
  <A, E, R>(test: (session: Session) => Effect.Effect<A, E, R>) =>
  () =>
    Effect.flatMap(newSession, test)

interface ToolAnswer {
  readonly isError: boolean
  readonly body: { readonly error?: string; readonly limit?: number }
}

/** The call-log rows of a user's tool calls, in order. */
const toolRows = (userId: number) =>
  Effect.gen(function* () {
    yield* readRowsWritten
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ tool: string; status: number; request_id: string | null; origin: string }>`
      select tool, status, request_id, origin from audit_log where user_id = ${userId} and tool is not null
      order by id`.pipe(Effect.orDie)
  })

/** Served calls are the successes; every other answer must be rate_limited with the limit. */
const assertServedThenLimited = (answers: ReadonlyArray<ToolAnswer>) => {
  const served = answers.filter((answer) => !answer.isError).length
  for (const answer of answers.filter((a) => a.isError)) {
    assert.strictEqual(answer.body.error, "rate_limited", JSON.stringify(answer.body))
    assert.strictEqual(answer.body.limit, LIMIT)
  }
  return served
}

/** A tool answer refused for the request limit, with the limit. */
const assertRateLimited = (answer: { readonly isError: boolean; readonly text: ToolAnswer["body"] }) => {
  assert.isTrue(answer.isError)
  assert.strictEqual(answer.text.error, "rate_limited")
  assert.strictEqual(answer.text.limit, LIMIT)
}

/** A POST refused before any call in it ran: it counted once (its answer says so), and no call was logged. */
const assertCountedOnceRanNothing = (userId: number, reply: { readonly headers: Headers; readonly text: string }) =>
  Effect.gen(function* () {
    assert.strictEqual(reply.headers.get("ratelimit-remaining"), String(LIMIT - 1), reply.text)
    assert.lengthOf(yield* toolRows(userId), 0)
  })

layer(TestServerLive)("a tool call is a request", (it) => {
  describe("counted against the request limit, call by call", () => {
    it.scoped(
      "through the SDK client, 90 tool calls within a minute get at most 60 served; the rest and the next call are rate_limited with limit 60",
      inSession((session) =>
        Effect.gen(function* () {
          const client = yield* Effect.acquireRelease(
            Effect.promise(async () => {
              const client = new Client({ name: "limits-test", version: "1.0.0" })
              const transport = new StreamableHTTPClientTransport(new URL(session.mcpUrl), {
                authProvider: session.provider
              })
              await client.connect(transport)
              return client
            }),
            (client) => Effect.promise(() => client.close())
          )
          const answers: Array<ToolAnswer> = []
          for (let i = 0; i < 90; i++) {
            const result = yield* Effect.promise(() => client.callTool({ name: "list_sites", arguments: {} }))
            const content = result.content as ReadonlyArray<{ readonly text: string }>
            answers.push({ isError: result.isError === true, body: JSON.parse(content[0]!.text) })
          }
          const served = assertServedThenLimited(answers)
          // The client's own protocol requests (initialize, its notification) count too, once per HTTP request.
          assert.isAtMost(served, LIMIT)
          assert.isAtLeast(served, LIMIT - 5)
          // Once the limit is reached, every further call is refused.
          assert.isTrue(
            answers.slice(served).every((answer) => answer.isError),
            "a call was served after one was refused"
          )
          assertRateLimited(yield* session.listSites)

          // Every answered call has exactly one call-log row of its own, with its own request id.
          const rows = yield* toolRows(session.userId)
          assert.lengthOf(rows, 91)
          assert.strictEqual(rows.filter((row) => row.status === 200).length, served)
          assert.strictEqual(rows.filter((row) => row.status === 429).length, 91 - served)
          for (const row of rows) assert.strictEqual(row.origin, "MCP")
          assert.strictEqual(new Set(rows.map((row) => row.request_id)).size, 91)
        })
      )
    )

    it.effect(
      "a JSON-RPC batch of 90 tool calls counts 90: 60 are served, 30 are rate_limited, and the next call is too",
      inSession((session) =>
        Effect.gen(function* () {
          const batch = Array.from({ length: 90 }, (_, i) => ({ ...LIST_SITES, id: i + 1 }))
          const reply = yield* session.post(batch)
          assert.strictEqual(reply.status, 200, reply.text)
          const results = JSON.parse(reply.text) as ReadonlyArray<{
            readonly id: number
            readonly result: { readonly isError?: boolean; readonly content: ReadonlyArray<{ readonly text: string }> }
          }>
          assert.lengthOf(results, 90)
          const answers = results.map(({ result }) => ({
            isError: result.isError === true,
            body: JSON.parse(result.content[0]!.text)
          }))
          assert.strictEqual(assertServedThenLimited(answers), LIMIT)
          // The answer carries the limit as the calls left it.
          assert.strictEqual(reply.headers.get("ratelimit-limit"), String(LIMIT))
          assert.strictEqual(reply.headers.get("ratelimit-remaining"), "0")

          assertRateLimited(yield* session.listSites)

          const rows = yield* toolRows(session.userId)
          assert.lengthOf(rows, 91)
          assert.strictEqual(rows.filter((row) => row.status === 200).length, LIMIT)
          assert.strictEqual(rows.filter((row) => row.status === 429).length, 31)
          // Each call is a request of its own: its own request id, none of them the HTTP request's.
          const ids = new Set(rows.map((row) => row.request_id))
          assert.strictEqual(ids.size, 91)
          assert.isFalse(ids.has(reply.headers.get("x-request-id")))
          assert.isFalse(ids.has(null))

          // A minute later the user has a fresh allowance.
          yield* TestClock.adjust("1 minute")
          assert.isFalse((yield* session.listSites).isError)
        })
      )
    )

    it.effect(
      "a POST of one tool call counts once; a POST of protocol messages counts once, however many it holds",
      inSession((session) =>
        Effect.gen(function* () {
          const call = yield* session.post(LIST_SITES)
          assert.strictEqual(call.status, 200, call.text)
          assert.strictEqual(call.headers.get("ratelimit-remaining"), String(LIMIT - 1))
          const list = yield* session.post([
            { ...toolsList, id: 1 },
            { ...toolsList, id: 2 },
            { jsonrpc: "2.0", id: 3, method: "ping" }
          ])
          assert.strictEqual(list.status, 200, list.text)
          assert.strictEqual(list.headers.get("ratelimit-remaining"), String(LIMIT - 2))
          const mixed = yield* session.post([
            { ...toolsList, id: 1 },
            { ...LIST_SITES, id: 2 },
            { ...LIST_SITES, id: 3 }
          ])
          assert.strictEqual(mixed.status, 200, mixed.text)
          assert.strictEqual(mixed.headers.get("ratelimit-remaining"), String(LIMIT - 5))
        })
      )
    )
  })

  describe("refused requests", () => {
    it.effect(
      "a POST refused for a foreign Origin counts once, as a refused HTTP request does",
      inSession((session) =>
        Effect.gen(function* () {
          const refused = yield* session.post(LIST_SITES, {
            origin: "https://evil.example"
          })
          assert.strictEqual(refused.status, 403, refused.text)
          assert.lengthOf(yield* toolRows(session.userId), 0)
          const call = yield* session.post(LIST_SITES)
          assert.strictEqual(call.status, 200, call.text)
          assert.strictEqual(call.headers.get("ratelimit-remaining"), String(LIMIT - 2))
        })
      )
    )

    type Reply = Effect.Effect.Success<ReturnType<Session["postText"]>>
    const refusedBeforeRunning: ReadonlyArray<
      readonly [string, (session: Session) => Effect.Effect<Reply>, (refused: Reply) => void]
    > = [
      [
        // The transport refuses a POST whose Accept header leaves out the types it may answer with, before any
        // message in it runs.
        "a call the protocol refuses before it runs (an Accept without JSON or an event stream)",
        (session) => session.post(LIST_SITES, { accept: "text/html" }),
        (refused) => {
          assert.isAtLeast(refused.status, 400, refused.text)
          assert.isDefined(JSON.parse(refused.text).error, refused.text)
        }
      ],
      [
        "a body that is not JSON, a parse error (-32700),",
        (session) => session.postText(JSON.stringify(LIST_SITES).slice(0, -1)),
        (refused) => {
          assert.strictEqual(refused.status, 400, refused.text)
          assert.strictEqual(JSON.parse(refused.text).error?.code, -32700, refused.text)
        }
      ]
    ]
    for (const [label, send, check] of refusedBeforeRunning) {
      it.effect(
        `${label} counts once, and its answer says so in its headers; nothing in it runs`,
        inSession((session) =>
          Effect.gen(function* () {
            const refused = yield* send(session)
            check(refused)
            yield* assertCountedOnceRanNothing(session.userId, refused)
          })
        )
      )
    }

    it.effect(
      "a lone call after a byte order mark is the call it carries, and counts once",
      inSession((session) =>
        Effect.gen(function* () {
          const call = yield* session.postText(`\uFEFF${JSON.stringify(LIST_SITES)}`)
          assert.strictEqual(call.status, 200, call.text)
          assert.isUndefined(JSON.parse(call.text).result?.isError, call.text)
          assert.strictEqual(call.headers.get("ratelimit-remaining"), String(LIMIT - 1))
          assert.lengthOf(yield* toolRows(session.userId), 1)
        })
      )
    )
  })

  describe("batches", () => {
    it.effect(
      "a batch from a client speaking revision 2025-06-18 or later is refused whole with -32600; nothing in it runs or counts",
      inSession((session) =>
        Effect.gen(function* () {
          for (const revision of ["2025-06-18", "2025-11-25"]) {
            const batch = [
              { ...LIST_SITES, id: 1 },
              { ...LIST_SITES, id: 2 }
            ]
            const reply = yield* session.post(batch, { "mcp-protocol-version": revision })
            assert.strictEqual(reply.status, 400, reply.text)
            const answer = JSON.parse(reply.text)
            assert.strictEqual(answer.error?.code, -32600, reply.text)
            assert.include(answer.error?.message, revision)
          }
          assert.lengthOf(yield* toolRows(session.userId), 0)
          const single = yield* session.post(LIST_SITES, {
            "mcp-protocol-version": "2025-06-18"
          })
          assert.strictEqual(single.status, 200, single.text)
          assert.strictEqual(single.headers.get("ratelimit-remaining"), String(LIMIT - 1))
        })
      )
    )
  })
})
