import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { Socket } from "node:net"
import type { Duplex } from "node:stream"
import {
  MethodNotAllowed,
  PayloadTooLarge,
  publicError,
  RequestTimeout,
  Unavailable,
  ValidationError
} from "../Domain/Errors.js"
import { SERVED_METHODS } from "./Unrouted.js"

/** The 503 as the error registry declares it, body and headers. */
const unavailable = publicError(
  new Unavailable({ message: "The service is starting or shutting down; retry in a second." })
)
const unavailableBody = JSON.stringify(unavailable.body)

/**
 * Answers a request that no handler will: the platform listens before it attaches its request handler, and removes
 * it before the server closes, so a connection accepted in between would otherwise never be answered.
 */
const answerUnavailable = (request: Http.IncomingMessage, response: Http.ServerResponse) => {
  // Drain the request body so that the answer is not held up by a client still sending.
  request.resume()
  response.writeHead(unavailable.status, {
    ...unavailable.headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(unavailableBody),
    "x-request-id": randomUUID(),
    "x-content-type-options": "nosniff",
    connection: "close"
  })
  response.end(unavailableBody)
}

/** How long a connection whose request could not be parsed is still read from after its answer. */
const LINGER_MS = 2_000

/** An `Error` answer written straight to a connection that node:http no longer serves, which is then closed. */
const rawAnswer = (status: number, reason: string, error: unknown, headers: Readonly<Record<string, string>> = {}) => {
  const body = JSON.stringify(publicError(error).body)
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${randomUUID()}`,
    "x-content-type-options: nosniff",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "connection: close",
    "",
    body
  ].join("\r\n")
}

/** Ends a connection with `answer`, reading what the client still sends for a moment so that it gets the answer. */
const endWith = (socket: Duplex, answer: string) => {
  socket.end(answer)
  socket.on("data", () => undefined)
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

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
        ? ([408, "Request Timeout", new RequestTimeout({ message: "The request did not arrive in time." })] as const)
        : ([400, "Bad Request", new ValidationError({ message: "The request is not well-formed HTTP/1.1." })] as const)
  return rawAnswer(status, reason, error)
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
  endWith(socket, clientErrorAnswer(error.code))
}

/**
 * A CONNECT request (a proxy's method): node:http hands its connection to a `connect` listener, and closes it without
 * an answer when there is none. It is answered 405 with the methods the service takes.
 */
const answerConnect = (request: Http.IncomingMessage, socket: Duplex) => {
  const error = new MethodNotAllowed({
    message: `This service is not a proxy and does not take ${request.method}; it takes ${SERVED_METHODS.join(", ")}.`
  })
  endWith(socket, rawAnswer(405, "Method Not Allowed", error, { allow: SERVED_METHODS.join(", ") }))
}

/** Whether a request comes with a body (declared by its length, or chunked). */
const hasBody = (request: Http.IncomingMessage) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? "0") > 0

/**
 * Answers 408 `request_timeout` when a request's body stops arriving (no byte for `stallMs`), then closes the
 * connection. Without it the request would wait for its body until its deadline, and the connection would then be
 * closed with no answer at all (the body's stream is destroyed with the handler that reads it). The connection's count
 * of bytes read is looked at every `stallMs` (node:http reads the socket itself, so there are no `data` events to
 * watch, and the socket's idle timer would also run while the handler works, once the body is in); the watch ends
 * when the body is complete or the response is done.
 */
const answerBodyStall = (request: Http.IncomingMessage, response: Http.ServerResponse, stallMs: number) => {
  if (request.complete || !hasBody(request)) return
  const socket = request.socket
  let seen = socket.bytesRead
  const watch = setInterval(() => {
    if (request.complete) return clearInterval(watch)
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead
      return
    }
    clearInterval(watch)
    if (response.headersSent) return void socket.destroy()
    const body = JSON.stringify(
      publicError(
        new RequestTimeout({
          message: `The request body stopped arriving: nothing came for ${stallMs / 1000} s. Send the whole body at once.`
        })
      ).body
    )
    // `connection: close`: node:http closes the connection once this is sent, and the handler still waiting for the
    // body then finds it gone (and its answer already sent).
    response.writeHead(408, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": randomUUID(),
      "x-content-type-options": "nosniff",
      connection: "close"
    })
    response.end(body)
  }, stallMs).unref()
  response.on("close", () => clearInterval(watch))
}

/**
 * A `node:http` server for `NodeHttpServer.layer` whose first `request` listener answers 503 `unavailable` with
 * `Retry-After: 1` whenever it is the only one: while the service starts (before the platform adds its handler)
 * and while it drains (after the handler is removed). Once the handler is attached, it only watches that the request's
 * body keeps arriving (see `answerBodyStall`). Requests node:http does not hand to the platform are answered too: one
 * it cannot parse, and CONNECT.
 */
export const createServer = (options: { readonly bodyStallMs: number }): Http.Server => {
  const server = Http.createServer()
  server.on("clientError", answerClientError(new WeakSet()))
  server.on("connect", answerConnect)
  server.on("request", (request, response) => {
    if (server.listenerCount("request") === 1) answerUnavailable(request, response)
    else answerBodyStall(request, response, options.bodyStallMs)
  })
  return server
}
