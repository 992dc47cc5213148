// @tags: runtime
import type { ChildProcess } from "node:child_process"
import { type IncomingHttpHeaders, request } from "node:http"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { embeddedEnv, freePort, startCbs, tempDir } from "./support/CbsProcess.js"
import { eventually, PATIENCE, waitUntil } from "./support/Eventually.js"
import { articleOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

const MiB = 1024 * 1024
const JSON_CAP = 5 * MiB
const IMAGE_LIMIT = 10 * MiB

interface RawResponse {
  /** -1 when the connection failed (reset, refused) instead of answering. */
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Record<string, unknown>
  readonly error?: string
}

/**
 * Sends the request line and headers (with whatever Content-Length they declare) and the first bytes of the body,
 * then waits for the answer without sending the rest: the server has to answer from the headers alone.
 */
const declareBody = (baseUrl: string, path: string, headers: Record<string, string | number>, firstBytes: string) =>
  Effect.async<RawResponse>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    let done = false
    const finish = (response: RawResponse) => {
      if (done) return
      done = true
      req.destroy()
      resume(Effect.succeed(response))
    }
    const req = request({ hostname, port, path, method: "POST", headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        finish({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) })
      })
    })
    req.on("error", (error) => finish({ status: -1, headers: {}, body: {}, error: String(error) }))
    req.write(firstBytes)
    return Effect.sync(() => req.destroy())
  })

const assertPayloadTooLarge = (response: RawResponse) => {
  assert.strictEqual(response.status, 413, response.error ?? JSON.stringify(response.body))
  assert.strictEqual(response.body["error"], "payload_too_large")
  assert.isString(response.body["message"])
  assert.isNumber(response.body["limit"])
  assert.isString(response.headers["x-request-id"])
  assert.isAbove((response.headers["x-request-id"] as string).length, 0)
}

layer(TestServerLive)("request hygiene", (it) => {
  describe("413 payload_too_large before the body is read", () => {
    it.effect("a JSON body declared over 5 MiB is answered 413 with limit 5 MiB and an X-Request-Id, not reset", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount()
        const response = yield* declareBody(
          app.baseUrl,
          `/api/v1/articles/${id}/featured-image`,
          { "x-api-key": key, "content-type": "application/json", "content-length": JSON_CAP + 1 },
          '{"url":"https://cdn.example.com/'
        )
        assertPayloadTooLarge(response)
        assert.strictEqual(response.body["limit"], JSON_CAP)
      })
    )

    it.effect(
      "a multipart body declared over 11 MiB is answered 413 with its limit and an X-Request-Id, not reset",
      () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const { key, id } = yield* articleOfNewAccount()
          const declared = 11 * MiB + 64 * 1024
          const response = yield* declareBody(
            app.baseUrl,
            `/api/v1/articles/${id}/featured-image`,
            { "x-api-key": key, "content-type": "multipart/form-data; boundary=xyz", "content-length": declared },
            '--xyz\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n'
          )
          assertPayloadTooLarge(response)
          // The cap leaves room for a 10 MiB image and its fields, and is below what was declared.
          assert.isAbove(response.body["limit"] as number, IMAGE_LIMIT)
          assert.isBelow(response.body["limit"] as number, declared)
        })
    )

    it.effect("a body declared over the cap is refused the same way without credentials", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const response = yield* declareBody(
          app.baseUrl,
          "/api/v1/articles/1",
          { "content-type": "application/json", "content-length": 50 * MiB },
          '{"body":"'
        )
        assertPayloadTooLarge(response)
      })
    )
  })

  describe("health", () => {
    it.effect(
      "GET /healthz is 200 {status: ok} and GET /readyz is 200 {status: ready}, each with an X-Request-Id",
      () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const health = yield* app.fetch("/healthz")
          assert.strictEqual(health.status, 200)
          assert.deepStrictEqual(yield* Effect.promise(() => health.json()), { status: "ok" })
          assert.isNotNull(health.headers.get("x-request-id"))
          const ready = yield* app.fetch("/readyz")
          assert.strictEqual(ready.status, 200)
          assert.deepStrictEqual(yield* Effect.promise(() => ready.json()), { status: "ready" })
          assert.isNotNull(ready.headers.get("x-request-id"))
        })
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Graceful shutdown of the real command, as a child process.

interface Served {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly key: string
  readonly exited: Promise<number | null>
  readonly output: () => string
}

/** Far longer than a drain takes, so that a drain cut short by it shows as a failure, not as a slow machine. */
const SHUTDOWN_TIMEOUT_SECONDS = 120

/**
 * `cbs serve` in a child process on the embedded database in a fresh DATA_DIR, with the demo data and the default
 * limits; ready once it has printed its banner. Killed (and its directory removed) when the scope closes, if it has
 * not exited by then.
 */
const serve = Effect.gen(function* () {
  const dataDir = yield* tempDir("cbs-shutdown-test-")
  const port = yield* freePort
  const env = embeddedEnv(dataDir, {
    PORT: String(port),
    SEED_DEMO: "true",
    SHUTDOWN_TIMEOUT_SECONDS: String(SHUTDOWN_TIMEOUT_SECONDS)
  })
  delete env["REQUESTS_PER_MINUTE"]
  delete env["EDITS_PER_DAY"]
  const running = yield* startCbs(["serve"], env)
  const output = () => `stdout:\n${running.stdout()}\nstderr:\n${running.stderr()}`
  // The banner's last line comes once the server listens. A first start creates the embedded database and imports
  // the demo data: a minute or two on a loaded machine.
  const ready = yield* eventually(
    Effect.sync(() => running.stdout().includes("Stop with Ctrl+C.") || running.child.exitCode !== null),
    (over) => over,
    "150 seconds"
  )
  assert.isTrue(ready && running.child.exitCode === null, `cbs serve did not start:\n${output()}`)
  const key = /^API key: (\S+)$/m.exec(running.stdout())?.[1]
  assert.isDefined(key, `no "API key:" line:\n${output()}`)
  return {
    child: running.child,
    baseUrl: `http://127.0.0.1:${port}`,
    key: key!,
    exited: running.exited,
    output
  } satisfies Served
})

/** The status of GET /healthz, or -1 when the connection is refused or fails. */
const healthStatus = (served: Served) =>
  Effect.promise(() =>
    fetch(`${served.baseUrl}/healthz`, { headers: { connection: "close" } }).then(
      async (res) => {
        await res.arrayBuffer()
        return res.status
      },
      () => -1
    )
  )

/** Fails the test when the process says it stopped with requests still running (its shutdown timeout ran out). */
const assertDrained = (served: Served) => assert.notInclude(served.output(), "shutting down anyway")

/** After SIGTERM: the process exits with code 0 in good time, having drained rather than given up. */
const assertExitsCleanly = (served: Served) =>
  Effect.gen(function* () {
    const exit = yield* Effect.promise(() => served.exited).pipe(Effect.timeoutOption(PATIENCE))
    assert.isTrue(Option.isSome(exit), `did not exit after SIGTERM:\n${served.output()}`)
    assert.strictEqual(Option.getOrThrow(exit), 0, `signal ${served.child.signalCode}\n${served.output()}`)
    // Held up until SHUTDOWN_TIMEOUT_SECONDS, it would exit 0 too, but only after saying so.
    assertDrained(served)
  })

/** The id of an article of the demo account, found through the API. */
const demoArticleId = (served: Served) =>
  Effect.gen(function* () {
    const headers = { "x-api-key": served.key }
    const sites = yield* Effect.promise(() =>
      fetch(`${served.baseUrl}/api/v1/sites`, { headers }).then((res) => res.json())
    )
    const siteId: number = sites.data[0].id
    const articles = yield* Effect.promise(() =>
      fetch(`${served.baseUrl}/api/v1/sites/${siteId}/articles`, { headers }).then((res) => res.json())
    )
    return articles.data[0].id as number
  })

/** A multipart featured-image upload of a PNG padded to `size` bytes. */
const pngUpload = (size: number) => {
  const boundary = "cbs-shutdown-boundary"
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64"
  )
  const image = Buffer.concat([png, Buffer.alloc(size - png.length)])
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`
    ),
    image,
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="reason"\r\n\r\nshutdown test\r\n--${boundary}--\r\n`
    )
  ])
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

// Each test has a server process of its own: they run side by side, most of their time spent waiting for it to start.
describe.concurrent("graceful shutdown of cbs serve", () => {
  it.scopedLive(
    "a request in flight when SIGTERM arrives completes with a response, then the process exits by itself",
    () =>
      Effect.gen(function* () {
        const served = yield* serve
        const id = yield* demoArticleId(served)
        const { body, contentType } = pngUpload(2 * MiB)
        const half = Math.floor(body.length / 2)
        const { hostname, port } = new URL(served.baseUrl)

        let settle: (response: RawResponse) => void = () => {}
        const answered = new Promise<RawResponse>((resolve) => {
          settle = resolve
        })
        const req = request(
          {
            hostname,
            port,
            path: `/api/v1/articles/${id}/featured-image`,
            method: "POST",
            headers: {
              "x-api-key": served.key,
              "content-type": contentType,
              "content-length": body.length,
              expect: "100-continue"
            }
          },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (chunk: Buffer) => chunks.push(chunk))
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString("utf8")
              let parsed: Record<string, unknown> = {}
              try {
                parsed = JSON.parse(text)
              } catch {
                parsed = { unparsable: text }
              }
              settle({ status: res.statusCode ?? 0, headers: res.headers, body: parsed })
            })
          }
        )
        req.on("error", (error) => settle({ status: -1, headers: {}, body: {}, error: String(error) }))
        // The server has the request once it says to go on with the body (Expect: 100-continue).
        yield* Effect.async<void>((resume) => {
          req.once("continue", () => resume(Effect.void))
          req.flushHeaders()
        })
        yield* Effect.async<void>((resume) => {
          req.write(body.subarray(0, half), () => resume(Effect.void))
        })
        // Asked to stop while the rest of the body is still to come; it has begun to once it no longer serves new
        // requests (503 unavailable, or no longer listening).
        assert.isTrue(served.child.kill("SIGTERM"))
        yield* waitUntil(
          "cbs serve stops taking new requests",
          Effect.map(healthStatus(served), (status) => status !== 200)
        )
        assert.isNull(served.child.exitCode, `exited before the request finished:\n${served.output()}`)
        req.end(body.subarray(half))

        const response = yield* Effect.promise(() => answered)
        assert.notStrictEqual(response.status, -1, `connection failed: ${response.error}\n${served.output()}`)
        if (response.status === 200) {
          assert.match(String((response.body["data"] as Record<string, unknown>)["featured_image_url"]), /\/media\//)
        } else {
          assert.isString(response.body["error"], JSON.stringify(response.body))
        }

        yield* assertExitsCleanly(served)
      }),
    300_000
  )

  it.scopedLive(
    "with no request in flight, SIGTERM makes the process exit with code 0 without waiting out its shutdown timeout",
    () =>
      Effect.gen(function* () {
        const served = yield* serve
        // A finished request leaves an idle keep-alive connection behind, which must not hold the process up.
        const health = yield* Effect.promise(() => fetch(`${served.baseUrl}/healthz`))
        assert.strictEqual(health.status, 200)
        yield* Effect.promise(() => health.text())
        assert.isTrue(served.child.kill("SIGTERM"))
        yield* assertExitsCleanly(served)
      }),
    300_000
  )
})
