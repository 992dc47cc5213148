import { randomUUID } from "node:crypto"
import { HttpApp, type HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Context, Effect, FiberRef, Option } from "effect"
import { RequestId } from "../Http/RequestId.js"

/**
 * The application as it answers a request, before anything is written to a socket: the same router, middleware,
 * decoding and error encoding that serve HTTP. Provided to every request, so that a door that is not HTTP (an agent's
 * tool call) can send its calls through the very same pipeline, in process.
 */
export class ApplicationApp extends Context.Tag("Mcp/ApplicationApp")<
  ApplicationApp,
  HttpApp.Default<never, HttpRouter.HttpRouter.DefaultServices>
>() {}

/**
 * Answers `request` with the application, in process, as a request of its own: with its own request id (on its log
 * lines and its call-log row) and its own deadline, pre-response handlers (limit headers, the call log) that run on
 * this response rather than the enclosing request's, and an access line. `context` is added to the request's context:
 * the door it came through (`Door`) travels there, never in a header an outside request could also send.
 */
export const answerInProcess = (
  request: HttpServerRequest.HttpServerRequest,
  context: Context.Context<never>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  ApplicationApp | HttpRouter.HttpRouter.DefaultServices
> => {
  const requestId = randomUUID()
  return Effect.gen(function* () {
    const app = yield* ApplicationApp
    const response = yield* app.pipe(
      Effect.catchAllCause((cause) => Effect.map(HttpServerError.causeResponse(cause), ([answer]) => answer))
    )
    const handler = yield* FiberRef.get(HttpApp.currentPreResponseHandlers)
    const answered = Option.isNone(handler) ? response : yield* handler.value(request, response)
    yield* Effect.logInfo("Answered in process").pipe(
      Effect.annotateLogs({ "http.method": request.method, "http.url": request.url, "http.status": answered.status })
    )
    return answered
  }).pipe(
    Effect.locally(HttpApp.currentPreResponseHandlers, Option.none()),
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.provide(Context.add(context, RequestId, requestId)),
    Effect.annotateLogs("request_id", requestId),
    Effect.scoped,
    Effect.catchAllCause((cause) =>
      Effect.flatMap(HttpServerError.causeResponse(cause), ([answer]) => Effect.succeed(answer))
    )
  )
}
