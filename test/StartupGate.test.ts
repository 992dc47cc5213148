// @tags: engine runtime
import { request } from "node:http"
import { connect } from "node:net"
import { join } from "node:path"
import { HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { createServer } from "../src/Server/StartupGate.js"
import { cbsEnv, freePort, startCbs, tempDir } from "./support/CbsProcess.js"
import { PATIENCE } from "./support/Eventually.js"

/** What became of one request: refused (nothing listened yet), no answer in time, another failure, or an answer. */
type Outcome =
  | { readonly _tag: "refused" }
  | { readonly _tag: "timed out" }
  | { readonly _tag: "failed"; readonly code: string }
  | {
      readonly _tag: "answered"
      readonly status: number
      readonly retryAfter: string | undefined
      readonly requestId: string | undefined
      readonly body: string
    }

/** A request with no answer for this long counts as never answered. */
const REQUEST_TIMEOUT_MS = Duration.toMillis(PATIENCE)

/** A 503 as the gate sends it: Retry-After: 1, a request id, and the `unavailable` error body. */
const assertUnavailable = (outcome: Outcome) => {
  assert.strictEqual(outcome._tag, "answered", JSON.stringify(outcome))
  if (outcome._tag !== "answered") return
  assert.strictEqual(outcome.status, 503, outcome.body)
  assert.strictEqual(outcome.retryAfter, "1")
  assert.isString(outcome.requestId)
  const body = JSON.parse(outcome.body)
  assert.deepStrictEqual(Object.keys(body), ["error", "message"])
  assert.strictEqual(body.error, "unavailable")
  assert.isNotEmpty(body.message)
}

/** One GET on a connection of its own, given up after REQUEST_TIMEOUT_MS. */
const get = (port: number, path: string) =>
  Effect.async<Outcome>((resume) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resume(
          Effect.succeed({
            _tag: "answered",
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"],
            requestId: res.headers["x-request-id"] as string | undefined,
            body: Buffer.concat(chunks).toString("utf8")
          })
        )
      )
    })
    req.setTimeout(REQUEST_TIMEOUT_MS, () => {
      req.destroy()
      resume(Effect.succeed({ _tag: "timed out" }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resume(Effect.succeed({ _tag: "refused" }))
      else resume(Effect.succeed({ _tag: "failed", code: error.code ?? error.message }))
    })
    req.end()
  })

/** Requests a client has waiting for an answer at most: a slower machine gets fewer requests, not a longer queue. */
const MAX_IN_FLIGHT = 5

/**
 * A client polling `path` every 10 ms, without waiting for the answers (as a health checker with a timeout longer
 * than its interval does, up to MAX_IN_FLIGHT at once), until one is a 200. Every outcome, once each request has
 * ended.
 */
const pollUntilOk = (port: number, path: string) =>
  Effect.gen(function* () {
    const ok = yield* Deferred.make<void>()
    const requests: Array<Fiber.RuntimeFiber<Outcome>> = []
    let inFlight = 0
    while (!(yield* Deferred.isDone(ok))) {
      if (inFlight < MAX_IN_FLIGHT) {
        inFlight++
        const sent = get(port, path).pipe(
          Effect.tap((outcome) =>
            outcome._tag === "answered" && outcome.status === 200 ? Deferred.succeed(ok, undefined) : Effect.void
          ),
          Effect.ensuring(Effect.sync(() => inFlight--))
        )
        requests.push(yield* Effect.fork(sent))
      }
      yield* Effect.sleep("10 millis")
    }
    return yield* Fiber.joinAll(requests)
  })

describe("the server before and after its handler", () => {
  it.scoped(
    "a request on a server that listens but has no handler yet, or no longer, is answered 503 unavailable",
    () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(
          NodeHttpServer.layer(() => createServer({ bodyStallMs: 10_000 }), { port: 0, host: "127.0.0.1" })
        )
        const server = yield* Effect.provide(HttpServer.HttpServer, context)
        const port = server.address._tag === "TcpAddress" ? server.address.port : 0

        // Listening, no handler yet: the platform attaches it only once the application is built.
        assertUnavailable(yield* get(port, "/healthz"))

        const handled = yield* Effect.gen(function* () {
          yield* HttpServer.serveEffect(HttpServerResponse.text("ok")).pipe(Effect.provide(context))
          return yield* get(port, "/healthz")
        }).pipe(Effect.scoped)
        assert.deepInclude(handled, { _tag: "answered", status: 200, body: "ok" })

        // The handler removed, as when the server drains before it closes.
        assertUnavailable(yield* get(port, "/healthz"))
      })
  )
})

/** The raw answer to `bytes` sent on a connection of their own (for requests node:http cannot send). */
const sendRaw = (port: number, bytes: string) =>
  Effect.async<string>((resume) => {
    const chunks: Array<Buffer> = []
    const socket = connect({ host: "127.0.0.1", port }, () => socket.end(bytes))
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("close", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    socket.on("error", (error) => resume(Effect.succeed(`error: ${error.message}`)))
  })

describe("requests node:http cannot parse", () => {
  const served = Effect.gen(function* () {
    const context = yield* Layer.build(
      NodeHttpServer.layer(() => createServer({ bodyStallMs: 10_000 }), { port: 0, host: "127.0.0.1" })
    )
    const server = yield* Effect.provide(HttpServer.HttpServer, context)
    yield* HttpServer.serveEffect(HttpServerResponse.text("ok")).pipe(Effect.provide(context))
    return server.address._tag === "TcpAddress" ? server.address.port : 0
  })

  it.scoped("a URL of megabytes is answered 431 with the error body and a request id, never a reset, every time", () =>
    Effect.gen(function* () {
      const port = yield* served
      for (let i = 0; i < 5; i++) {
        const outcome = yield* get(port, `/api/v1/sites?q=${"a".repeat(3_000_000)}`)
        assert.strictEqual(outcome._tag, "answered", JSON.stringify(outcome))
        if (outcome._tag !== "answered") return
        assert.strictEqual(outcome.status, 431)
        assert.isString(outcome.requestId)
        assert.strictEqual(JSON.parse(outcome.body).error, "payload_too_large")
      }
    })
  )

  it.scoped("a request that is not HTTP is answered 400 validation_error with a request id", () =>
    Effect.gen(function* () {
      const port = yield* served
      const answer = yield* sendRaw(port, "NOT HTTP AT ALL\r\n\r\n")
      assert.match(answer, /^HTTP\/1\.1 400 /)
      assert.match(answer, /\r\nx-request-id: \S+\r\n/)
      assert.strictEqual(JSON.parse(answer.split("\r\n\r\n")[1] ?? "").error, "validation_error")
    })
  )
})

describe("start-up (subprocess)", () => {
  it.live(
    "requests that arrive while cbs serve starts are each answered, 200 or 503 unavailable with Retry-After: 1",
    () =>
      Effect.gen(function* () {
        const dataDir = join(yield* tempDir("cbs-startup-test-"), "data")
        const port = yield* freePort
        const served = yield* startCbs(["serve"], yield* cbsEnv(dataDir, { PORT: String(port), SEED_DEMO: "false" }))

        // Ten clients, polling from before the server listens until each has had a 200.
        const clients = yield* Effect.all(
          Array.from({ length: 10 }, () => pollUntilOk(port, "/healthz")),
          { concurrency: "unbounded" }
        ).pipe(
          Effect.raceFirst(
            Effect.promise(() => served.exited).pipe(
              Effect.flatMap((code) => Effect.dieMessage(`cbs serve exited (${code}):\n${served.stderr()}`))
            )
          ),
          Effect.timeoutFail({
            duration: "150 seconds",
            onTimeout: () => new Error(`no 200 from /healthz:\n${served.stdout()}\n${served.stderr()}`)
          })
        )

        const outcomes = clients.flat()
        const unanswered = outcomes.filter((outcome) => outcome._tag === "timed out" || outcome._tag === "failed")
        assert.deepStrictEqual(unanswered, [], "every connection the server accepted is answered")
        const answers = outcomes.flatMap((outcome) => (outcome._tag === "answered" ? [outcome] : []))
        for (const answer of answers.filter((answer) => answer.status !== 200)) assertUnavailable(answer)
        for (const client of clients) {
          assert.isTrue(client.some((outcome) => outcome._tag === "answered" && outcome.status === 200))
        }
      }).pipe(Effect.scoped),
    180_000
  )
})
