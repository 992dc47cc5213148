import { randomUUID } from "node:crypto"
import { HttpApp, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, FiberRef, HashMap, Option } from "effect"
import { NotFound, PayloadTooLarge } from "../Domain/Errors.js"
import { errorResponse } from "./ErrorResponse.js"
import { bodyCapOf } from "./RequestBodies.js"
import { RequestId } from "./RequestId.js"

/** The path of a request URL, without its query string. */
export const pathOf = (url: string) => url.split("?")[0] ?? url

/**
 * What holds for requests from the network, before the application sees them:
 * - a `;` in a path names no route. The router would otherwise read `/api/v1/articles/1;drop` as article 1 (it takes
 *   `;` as the start of parameters), so such a path is answered 404 before routing;
 * - a body declared larger than its route's cap is refused with 413 before it is read, and one that does not declare
 *   its size is cut off at the cap. A request answered in process (an agent's tool call) was capped as part of the
 *   request to /mcp that carries it.
 * It wraps the application inside the server (not as part of `serverMiddleware`, whose answers bypass the
 * pre-response handlers), so that these answers carry their request id like every other.
 */
export const fromNetwork = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = pathOf(request.url)
    if (path.includes(";")) {
      return Effect.succeed(errorResponse(new NotFound({ message: `No route for ${request.method} ${path}.` })))
    }
    // No endpoint reads the body of a GET or HEAD.
    if (request.method === "GET" || request.method === "HEAD") return app
    const cap = bodyCapOf(path, request.headers["content-type"])
    const declared = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > cap) {
      return Effect.succeed(
        errorResponse(new PayloadTooLarge({ message: `The request body is larger than ${cap} bytes.`, limit: cap }))
      )
    }
    return HttpIncomingMessage.withMaxBodySize(app, Option.some(cap))
  })

/**
 * Wraps the whole application: each request gets an id, sent back as `X-Request-Id` on every response (errors
 * included) and attached to every log line; a 401 says how to authenticate; each response is logged (method, URL,
 * status). Responses are added to through a pre-response handler because the server has already sent them by the
 * time a middleware's effect returns. The access line is written there too, rather than by wrapping the request in
 * `HttpMiddleware.logger` (a log span around every request, its exit taken and raised again): a sixth of the CPU
 * of a list request.
 */
export const serverMiddleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.gen(function* () {
    const requestId = randomUUID()
    const request = yield* HttpServerRequest.HttpServerRequest
    const accessLine = (status: number) =>
      Effect.logInfo("Sent HTTP response").pipe(
        Effect.annotateLogs({
          request_id: requestId,
          "http.method": request.method,
          "http.url": request.url,
          "http.status": status
        })
      )
    yield* HttpApp.appendPreResponseHandler((_request, response) => {
      const withId = HttpServerResponse.setHeader(response, "x-request-id", requestId)
      return Effect.as(
        accessLine(response.status),
        response.status === 401 && response.headers["www-authenticate"] === undefined
          ? HttpServerResponse.setHeader(withId, "www-authenticate", 'Bearer realm="content-backlink-service"')
          : withId
      )
    })
    // Set on the request's own fiber, which ends with the request: nothing to restore afterwards, so set directly
    // rather than with `Effect.provideService` and `Effect.annotateLogs` (each saves the old value and restores it).
    yield* FiberRef.update(FiberRef.currentContext, Context.add(RequestId, requestId))
    yield* FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", requestId))
    // A request whose client hung up before its answer is logged too, with the usual status for that, 499.
    return yield* Effect.onInterrupt(app, () => accessLine(499))
  })
