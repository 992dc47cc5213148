import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { PayloadTooLarge, publicError, Unavailable, ValidationError } from "../Domain/Errors.js"

/** The 503 as the error registry declares it. */
const unavailable = JSON.stringify(
  publicError(new Unavailable({ message: "The service is starting or shutting down; retry in a second." })).body
)

/**
 * Answers a request that no handler will: the platform listens before it attaches its request handler, and removes
 * it before the server closes, so a connection accepted in between would otherwise never be answered.
 */
const answerUnavailable = (request: Http.IncomingMessage, response: Http.ServerResponse) => {
  // Drain the request body so that the answer is not held up by a client still sending.
  request.resume()
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(unavailable),
    "retry-after": "1",
    "x-request-id": randomUUID(),
    "x-content-type-options": "nosniff",
    connection: "close"
  })
  response.end(unavailable)
}

/** How long a connection whose request could not be parsed is still read from after its answer. */
const LINGER_MS = 2_000

/** The answer to a request node:http could not parse, written straight to its connection. */
const clientErrorAnswer = (code: string | undefined) => {
  const [status, reason, error] =
    code === "HPE_HEADER_OVERFLOW"
      ? ([
          431,
          "Request Header Fields Too Large",
          new PayloadTooLarge({
            message: `The request line and headers are over ${Http.maxHeaderSize} bytes; send long values in the body.`,
            limit: Http.maxHeaderSize
          })
        ] as const)
      : code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ([408, "Request Timeout", new ValidationError({ message: "The request did not arrive in time." })] as const)
        : ([400, "Bad Request", new ValidationError({ message: "The request is not well-formed HTTP/1.1." })] as const)
  const body = JSON.stringify(publicError(error).body)
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${randomUUID()}`,
    "x-content-type-options: nosniff",
    "connection: close",
    "",
    body
  ].join("\r\n")
}

/**
 * Answers a request node:http could not parse (headers over its limit, malformed framing) with the error body every
 * other answer has, then reads what the client is still sending for a moment before closing. Node's own handler
 * closes at once, and a client still writing (a URL of megabytes) then gets a reset instead of the answer (always
 * on Node 24). Node may report more than one error for a connection; the first is answered.
 */
const answerClientError = (answered: WeakSet<Duplex>) => (error: Error & { code?: string }, socket: Duplex) => {
  if (answered.has(socket)) return
  answered.add(socket)
  // As node:http does: a connection that has already had (part of) an answer is closed, not answered again.
  const written = socket instanceof Socket ? socket.bytesWritten : 0
  if (!socket.writable || written > 0) return void socket.destroy()
  socket.end(clientErrorAnswer(error.code))
  socket.on("data", () => undefined)
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

/**
 * A `node:http` server for `NodeHttpServer.layer` whose first `request` listener answers 503 `unavailable` with
 * `Retry-After: 1` whenever it is the only one: while the service starts (before the platform adds its handler)
 * and while it drains (after the handler is removed). Once the handler is attached, it does nothing.
 */
export const createServer = (): Http.Server => {
  const server = Http.createServer()
  server.on("clientError", answerClientError(new WeakSet()))
  server.on("request", (request, response) => {
    if (server.listenerCount("request") === 1) answerUnavailable(request, response)
  })
  return server
}
