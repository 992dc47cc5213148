import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { publicError, Unavailable } from "../Domain/Errors.js"

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
    connection: "close"
  })
  response.end(unavailable)
}

/**
 * A `node:http` server for `NodeHttpServer.layer` whose first `request` listener answers 503 `unavailable` with
 * `Retry-After: 1` whenever it is the only one: while the service starts (before the platform adds its handler)
 * and while it drains (after the handler is removed). Once the handler is attached, it does nothing.
 */
export const createServer = (): Http.Server => {
  const server = Http.createServer()
  server.on("request", (request, response) => {
    if (server.listenerCount("request") === 1) answerUnavailable(request, response)
  })
  return server
}
