import { randomUUID } from "node:crypto"
import { HttpApp, HttpMiddleware, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { RequestId } from "./RequestId.js"

/**
 * Wraps the whole application: each request gets an id, sent back as `X-Request-Id` on every response (errors
 * included) and attached to every log line; a 401 says how to authenticate. Responses are added to through a
 * pre-response handler because the server has already sent them by the time a middleware's effect returns.
 */
export const serverMiddleware = (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function* () {
    const requestId = randomUUID()
    yield* HttpApp.appendPreResponseHandler((_request, response) => {
      const withId = HttpServerResponse.setHeader(response, "x-request-id", requestId)
      return Effect.succeed(
        response.status === 401 && response.headers["www-authenticate"] === undefined
          ? HttpServerResponse.setHeader(withId, "www-authenticate", 'Bearer realm="content-backlink-service"')
          : withId
      )
    })
    // The access log line (method, url, status) carries the request id like every other line of the request.
    return yield* HttpMiddleware.logger(app).pipe(
      Effect.provideService(RequestId, requestId),
      Effect.annotateLogs("request_id", requestId)
    )
  })
