// @tags: runtime
import { connect } from "node:net"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { articleOfNewAccount, serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"

/** An answer read off a raw connection until the server closed it: its status, headers and parsed body. */
interface RawAnswer {
  readonly status: number
  readonly headers: ReadonlyMap<string, string>
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in the assertions.
  readonly body: any
  readonly text: string
}

const parse = (text: string): RawAnswer => {
  const [head = "", body = ""] = text.split("\r\n\r\n")
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers = new Map(
    lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
  )
  let parsed: unknown = null
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = null
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: parsed, text }
}

/**
 * Sends `bytes` on a connection of its own and never anything more (a body that stops half-way stays stopped), and
 * reads until the server closes the connection: a server that answers nothing shows as status NaN.
 */
const sendRaw = (baseUrl: string, bytes: string) =>
  Effect.async<RawAnswer>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    const chunks: Array<Buffer> = []
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(bytes))
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("close", () => resume(Effect.succeed(parse(Buffer.concat(chunks).toString("utf8")))))
    socket.on("error", () => undefined)
    return Effect.sync(() => socket.destroy())
  })

const assertErrorBody = (answer: RawAnswer, status: number, error: string) => {
  assert.strictEqual(answer.status, status, answer.text)
  assert.match(answer.headers.get("content-type") ?? "", /^application\/json/)
  assert.isString(answer.headers.get("x-request-id"))
  assert.strictEqual(answer.body?.error, error, answer.text)
  assert.isString(answer.body?.message)
}

layer(TestServerLive, { excludeTestServices: true })("requests the application is not handed", (it) => {
  describe("a body that stops arriving", () => {
    it.scoped(
      "is answered 408 request_timeout (JSON) after BODY_STALL_SECONDS without a byte, then its connection is closed",
      () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount()
          const baseUrl = yield* serverWithSettings({ BODY_STALL_SECONDS: "1" })
          const headers = `Host: localhost\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n`
          // A declared length of which only the start arrives.
          const declared = yield* sendRaw(
            baseUrl,
            `PATCH /api/v1/articles/${id} HTTP/1.1\r\n${headers}content-length: 100\r\n\r\n{"title":`
          )
          assertErrorBody(declared, 408, "request_timeout")
          assert.strictEqual(declared.headers.get("connection"), "close")
          // A chunked body whose last chunk never comes.
          const chunked = yield* sendRaw(
            baseUrl,
            `PATCH /api/v1/articles/${id} HTTP/1.1\r\n${headers}transfer-encoding: chunked\r\n\r\n9\r\n{"title":\r\n`
          )
          assertErrorBody(chunked, 408, "request_timeout")
        })
    )
  })

  describe("methods the service does not take", () => {
    it.effect("CONNECT is answered 405 method_not_allowed (JSON) with Allow, not a closed connection", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const answer = yield* sendRaw(app.baseUrl, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        assertErrorBody(answer, 405, "method_not_allowed")
        assert.include(answer.headers.get("allow") ?? "", "GET")
      })
    )

    it.effect("TRACE and other methods no route takes are answered 405 method_not_allowed (JSON) with Allow", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        for (const method of ["TRACE", "PROPFIND"]) {
          const answer = yield* sendRaw(
            app.baseUrl,
            `${method} /api/v1/sites HTTP/1.1\r\nHost: localhost\r\nconnection: close\r\n\r\n`
          )
          assertErrorBody(answer, 405, "method_not_allowed")
          assert.include(answer.headers.get("allow") ?? "", "GET", method)
          assert.notInclude(answer.headers.get("allow") ?? "", method)
        }
      })
    )
  })
})
