import { randomUUID } from "node:crypto"
import { HttpApp, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Context, Effect, FiberRef, HashMap, Option } from "effect"
import { InternalError, MethodNotAllowed, NotFound, PayloadTooLarge } from "../Domain/Errors.js"
import { internalErrorMessage } from "../Http/ErrorMessages.js"
import { errorResponse, unavailableResponse } from "../Http/ErrorResponse.js"
import { bodyCapOf } from "../Http/RequestBodies.js"
import { RequestId } from "../Http/RequestId.js"
import { loggedUrl, pathOf } from "../Http/RequestPath.js"
import { isUndeclaredBody, readUndeclaredBody } from "./ChunkedBodies.js"
import { answersJson, pageMethodNotAllowed, pageNotFound, SERVED_METHODS } from "./Unrouted.js"

const served: ReadonlySet<string> = new Set(SERVED_METHODS)

/**
 * What holds for requests from the network, before the application sees them:
 * - a method the service does not answer anywhere is 405 with `Allow` (an HTML page under the web pages, see
 *   Unrouted.ts);
 * - a `;` in a path names no route (404, an HTML page under the web pages). The router would otherwise read `/api/v1/articles/1;drop` as article 1 (it takes
 *   `;` as the start of parameters), so such a path is answered 404 before routing;
 * - a body declared larger than its route's cap is refused with 413 before it is read, and one that does not declare
 *   its size (chunked) is read up to the cap and refused with 413 once over it (see `readUndeclaredBody`). A request answered in process (an agent's tool call) was capped as part of the
 *   request to /mcp that carries it.
 * It wraps the application inside the server (not as part of `serverMiddleware`, whose answers bypass the
 * pre-response handlers), so that these answers carry their request id like every other.
 */
export const fromNetwork = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = pathOf(request.url)
    if (!served.has(request.method)) {
      if (!answersJson(path)) return Effect.succeed(pageMethodNotAllowed(request.method, SERVED_METHODS))
      return Effect.succeed(
        errorResponse(
          new MethodNotAllowed({
            message: `This service does not take ${request.method}; it takes ${SERVED_METHODS.join(", ")}.`
          }),
          { allow: SERVED_METHODS.join(", ") }
        )
      )
    }
    if (path.includes(";")) {
      if (!answersJson(path)) return Effect.succeed(pageNotFound())
      return Effect.succeed(errorResponse(new NotFound({ message: `No route for ${request.method} ${path}.` })))
    }
    // No endpoint reads the body of a GET or HEAD.
    if (request.method === "GET" || request.method === "HEAD") return app
    const cap = bodyCapOf(path, request.headers["content-type"])
    // Made only when answered: an error instance captures a stack, which every body-carrying request would pay for.
    const tooLarge = () =>
      errorResponse(new PayloadTooLarge({ message: `The request body is larger than ${cap} bytes.`, limit: cap }))
    const declared = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > cap) return Effect.sync(tooLarge)
    const capped = HttpIncomingMessage.withMaxBodySize(app, Option.some(cap))
    if (!isUndeclaredBody(request)) return capped
    // A body without a declared length is read here, within the cap, so that one over it is answered 413.
    return Effect.flatMap(readUndeclaredBody(request, cap), (read) =>
      Option.match(read, {
        onNone: () => Effect.sync(tooLarge),
        onSome: (within) => Effect.provideService(capped, HttpServerRequest.HttpServerRequest, within)
      })
    )
  })

/** A response the platform raises as a defect after it has answered with it. */
const platformAnswer = (defect: unknown) =>
  HttpServerResponse.isServerResponse(defect) ? Option.some(Cause.empty) : Option.none()

/**
 * Whether a response is the platform's own answer to a failure it could not answer otherwise: an empty-bodied 5xx
 * (500 for a failure or a defect, 503 for a request the server interrupted). It is what is sent when a stage after the
 * handler fails (a pre-response handler that read the database after it died, say): the platform then answers 500
 * and runs the pre-response handlers again on that. No route of the service answers a 5xx without a body.
 */
const platformFallback = (response: HttpServerResponse.HttpServerResponse) =>
  response.status >= 500 && response.body._tag === "Empty"

/**
 * The `Error` body in place of the platform's empty 5xx: 503 `unavailable` (with `Retry-After`) for a request the
 * server stopped, and otherwise 500 `internal_error` with the request id, whose details the log has. A change whose
 * handler has answered has committed with its call-log row and its kept answer, so the stages after it do not fail it
 * (see `admit` in Limits/RequestLimit.ts): its own answer is sent. This 500 is for what is left, and says, for a
 * change, how to learn whether it was saved.
 */
const errorBodyOf = (status: number, requestId: string, method: string) =>
  status === 503
    ? unavailableResponse(
        "The service stopped the request before it could answer it (it is shutting down); retry in a second."
      )
    : errorResponse(new InternalError({ message: internalErrorMessage(requestId, method) }))

/** Headers every response carries: its request id, and what protects any response whatever its type. */
const commonHeaders = (requestId: string, options: ServerOptions): Record<string, string> => ({
  "x-request-id": requestId,
  // No browser may guess another type than the one declared (a JSON error read as HTML, an upload as a script).
  "x-content-type-options": "nosniff",
  ...(options.https ? { "strict-transport-security": "max-age=31536000" } : {})
})

/** What the wrapper of the whole application needs to know of the service. */
export interface ServerOptions {
  /** Whether the service's public address (PUBLIC_BASE_URL) is https: then browsers are told to use nothing else. */
  readonly https: boolean
}

/**
 * Wraps the whole application: each request gets an id, sent back as `X-Request-Id` on every response (errors
 * included) with `X-Content-Type-Options: nosniff` (and `Strict-Transport-Security` when the service is served over
 * https), and attached to every log line; a 401 says how to authenticate; each response is logged (method, URL,
 * status). Responses are added to through a pre-response handler because the server has already sent them by the
 * time a middleware's effect returns. The access line is written there too, rather than by wrapping the request in
 * `HttpMiddleware.logger` (a log span around every request, its exit taken and raised again): a sixth of the CPU
 * of a list request. A failure that escapes everything else (a pre-response handler that failed, say) is still
 * answered with the error body, not with the platform's empty 500.
 */
export const serverMiddleware =
  (options: ServerOptions) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.gen(function* () {
      const requestId = randomUUID()
      const request = yield* HttpServerRequest.HttpServerRequest
      const headers = commonHeaders(requestId, options)
      const accessLine = (status: number) =>
        Effect.logInfo("Sent HTTP response").pipe(
          Effect.annotateLogs({
            request_id: requestId,
            "http.method": request.method,
            "http.url": loggedUrl(request.url),
            "http.status": status
          })
        )
      yield* HttpApp.appendPreResponseHandler((_request, sent) => {
        const response = platformFallback(sent) ? errorBodyOf(sent.status, requestId, request.method) : sent
        const withId = HttpServerResponse.setHeaders(response, headers)
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
      return yield* Effect.onInterrupt(app, () => accessLine(499)).pipe(
        // Failures and interruptions are the platform's to answer (a response raised as an error, a client gone),
        // as are the responses it raises as defects once it has answered.
        Effect.catchAllCause((cause) =>
          !Option.exists(Cause.stripSomeDefects(cause, platformAnswer), Cause.isDie)
            ? Effect.failCause(cause)
            : Effect.gen(function* () {
                yield* Effect.logError("Request failed", cause)
                yield* accessLine(500)
                // Sent only if nothing was sent yet (the platform checks); no pre-response handler runs on it.
                return HttpServerResponse.setHeaders(
                  errorResponse(new InternalError({ message: internalErrorMessage(requestId, request.method) })),
                  headers
                )
              })
        )
      )
    })
