import type { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option } from "effect"
import { rebuiltRequest } from "../Http/RequestBodies.js"

/** How much more of a refused body is read (and thrown away) so that its client can read the 413 before closing. */
const DRAIN_BYTES = 64 * 1024 * 1024

/** Whether a request's body arrives without a declared length (chunked), so that its size is known only once read. */
export const isUndeclaredBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method !== "GET" &&
  request.method !== "HEAD" &&
  request.headers["content-length"] === undefined &&
  request.headers["transfer-encoding"] !== undefined

/** The rest of a refused body is read and dropped, up to DRAIN_BYTES, after which the connection is closed. */
const drain = (source: IncomingMessage) => {
  let dropped = 0
  source.on("data", (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > DRAIN_BYTES) source.socket.destroy()
  })
  source.resume()
}

/**
 * Reads a body sent without Content-Length up to `cap` bytes: the request rebuilt from those bytes, or None when the
 * body is larger (then the rest is drained, not reset, so that the client reads the 413 it is answered). The
 * platform's own cap would destroy the connection at once, and the client would see a reset instead of an answer.
 */
export const readUndeclaredBody = (
  request: HttpServerRequest.HttpServerRequest,
  cap: number
): Effect.Effect<Option.Option<HttpServerRequest.HttpServerRequest>> =>
  Effect.gen(function* () {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    const bytes = yield* Effect.async<Option.Option<Buffer>>((resume) => {
      const chunks: Array<Buffer> = []
      let size = 0
      const stop = () => {
        source.off("data", onData)
        source.off("end", onEnd)
        source.off("error", onError)
      }
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size <= cap) return void chunks.push(chunk)
        stop()
        drain(source)
        resume(Effect.succeed(Option.none()))
      }
      const onEnd = () => {
        stop()
        resume(Effect.succeed(Option.some(Buffer.concat(chunks))))
      }
      const onError = (error: Error) => {
        stop()
        resume(Effect.die(error))
      }
      source.on("data", onData).on("end", onEnd).on("error", onError)
      return Effect.sync(stop)
    })
    return Option.map(bytes, (body) => {
      return rebuiltRequest(request, new Uint8Array(body), { "content-length": String(body.length) })
    })
  })
