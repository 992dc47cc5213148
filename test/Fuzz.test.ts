// @tags: runtime
/**
 * Fuzz tests: every door of the service driven with generated and hostile requests (fast-check), each of which must
 * be answered (a request left unanswered for PATIENCE, 30 s, counts as a hang) and never with a 5xx, and none of
 * which may make the server log an error:
 * - every operation of the served OpenAPI document (ids of the account's own, of another account's, and ids that are
 *   no ids; query parameters; JSON and multipart bodies from the document's schemas, and malformed ones);
 * - POST /mcp with JSON-RPC messages (each tool's arguments from its input schema, other methods, broken envelopes);
 * - the OAuth endpoints (/register, /token, GET and POST /authorize) and the sign-in form (/signin, /signout).
 * Around them: NUL and lone surrogates, huge and negative numbers, very long text, JSON nested up to 100,000 levels,
 * HTML nested thousands of elements deep, odd or missing content types, bytes that are not UTF-8, chunked bodies and
 * bodies cut short.
 *
 * The seed is fixed, and the number of runs too (15 per operation with CBS_TEST_FULL=1, as in CI; 5 without). To
 * search further by hand:
 *   FUZZ_SEED=<any integer> FUZZ_RUNS=<runs per operation or endpoint> npx vitest run test/Fuzz.test.ts
 * A failure shows the request as sent (method, target, headers, the start of the body), what came back, what the
 * server logged, and fast-check's seed and path.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Runtime, TestClock } from "effect"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { PATIENCE } from "./support/Eventually.js"
import { apiRequest, type OpenApiDocument, operationsOf } from "./support/fuzz/ApiRequests.js"
import { accountFixtures, getJson, oauthFixtures, signInFixtures, startClock } from "./support/fuzz/Fixtures.js"
import { type McpTool, mcpRequest } from "./support/fuzz/McpRequests.js"
import {
  authorizeGetRequest,
  authorizePostRequest,
  registerRequest,
  tokenRequest
} from "./support/fuzz/OAuthRequests.js"
import { type FuzzSettings, fuzz, makeServerErrorLog, mcpProblem } from "./support/fuzz/Runner.js"
import { signInPageRequest, signInPostRequest, signOutRequest } from "./support/fuzz/SignInRequests.js"
import { makeBrowser, postRpc, signInWithSdk, toolsList } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import { sized } from "./support/TestSize.js"
import { PASSWORD } from "./support/WebPages.js"

/** Runs per operation or endpoint: FUZZ_RUNS, else 15 at full size (CBS_TEST_FULL=1, as in CI) and 5 without. */
const RUNS = Number(process.env["FUZZ_RUNS"] ?? sized(15, 5))
/** Room for every run plus one request that hangs; the per-request bound is what reports a hang. */
const TEST_TIMEOUT_MS = 150_000 + RUNS * 3_000

// The request limit would answer most of a run 429; the fuzz is after everything behind it.
process.env["REQUESTS_PER_MINUTE"] = "1000000"
// Uploaded featured images go to a fresh directory of this run, not into the repository; read when the layer is built.
const mediaDir = mkdtempSync(join(tmpdir(), "cbs-fuzz-media-"))
process.env["MEDIA_DIR"] = mediaDir
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }))

const serverErrors = makeServerErrorLog()

const settings: FuzzSettings = {
  seed: Number(process.env["FUZZ_SEED"] ?? "20261122"),
  runs: RUNS,
  answerWithinMs: Duration.toMillis(PATIENCE),
  serverErrors: serverErrors.entries
}

// --- The properties ---------------------------------------------------------------------------------------------

layer(TestServerLive.pipe(Layer.provide(serverErrors.layer)), { timeout: 120_000 })(
  "fuzz: generated and hostile requests are answered in time, never with a 5xx",
  (it) => {
    /** A property test: on the clock started, with the time a fuzzing run may take. */
    const property = (name: string, body: ReturnType<Parameters<typeof it.effect>[1]>) =>
      it.effect(name, () => Effect.andThen(startClock, body), TEST_TIMEOUT_MS)

    property(
      "every operation of the served OpenAPI document",
      Effect.gen(function* () {
        const { app, api } = yield* accountFixtures
        const doc = (yield* getJson("/api/v1/openapi.json")) as OpenApiDocument
        const operations = operationsOf(doc)
        assert.isAbove(operations.length, 0)
        for (const op of operations) {
          yield* fuzz(settings, app.baseUrl, `${op.method} ${op.path}`, apiRequest(doc, op, api))
        }
      })
    )

    property(
      "POST /mcp with generated JSON-RPC messages and tool calls, with a valid access token",
      Effect.gen(function* () {
        const { app, api, email, origin } = yield* accountFixtures
        const mcpUrl = `${origin}/mcp`
        const { accessToken } = yield* signInWithSdk({
          mcpUrl,
          browser: makeBrowser(app.baseUrl),
          user: { email, password: PASSWORD }
        })
        const listed = yield* postRpc(mcpUrl, accessToken, toolsList)
        const tools = (JSON.parse(listed.text) as { result: { tools: ReadonlyArray<McpTool> } }).result.tools
        assert.isAbove(tools.length, 0)
        const requests = mcpRequest({ ...api, tools, token: accessToken, origin })
        yield* fuzz(settings, app.baseUrl, "POST /mcp", requests, { runs: RUNS * 5, judge: mcpProblem })
      })
    )

    property(
      "the OAuth endpoints: /register, /token, GET and POST /authorize",
      Effect.gen(function* () {
        const { app, oauth } = yield* oauthFixtures
        yield* fuzz(settings, app.baseUrl, "POST /register", registerRequest(), { runs: RUNS * 2 })
        yield* fuzz(settings, app.baseUrl, "POST /token", tokenRequest(oauth), { runs: RUNS * 2 })
        yield* fuzz(settings, app.baseUrl, "GET /authorize", authorizeGetRequest(oauth))
        yield* fuzz(settings, app.baseUrl, "POST /authorize", authorizePostRequest(oauth))
      })
    )

    property(
      "the sign-in form: GET and POST /signin, POST /signout, with and without a valid token and cookie",
      Effect.gen(function* () {
        const { app, signIn } = yield* signInFixtures
        // Two minutes between attempts keep the throttle (10 checks in 15 minutes) from answering them all 429.
        const runtime = yield* Effect.runtime<never>()
        const later = () => Runtime.runPromise(runtime)(TestClock.adjust("2 minutes"))
        yield* fuzz(settings, app.baseUrl, "GET /signin", signInPageRequest(signIn))
        yield* fuzz(settings, app.baseUrl, "POST /signin", signInPostRequest(signIn), {
          runs: RUNS * 2,
          beforeEach: later
        })
        yield* fuzz(settings, app.baseUrl, "POST /signout", signOutRequest(signIn))
      })
    )

    it.effect("the server logged no error, late call-log writes included", () =>
      Effect.gen(function* () {
        yield* TestClock.adjust("1 second")
        yield* readRowsWritten
        assert.deepStrictEqual(serverErrors.entries, [])
      })
    )
  }
)
