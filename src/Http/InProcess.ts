import { HttpApp, type HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Context, Effect, FiberRef, Option } from "effect"

/**
 * The application as it answers a request, before anything is written to a socket: the same router, middleware,
 * decoding and error encoding that serve HTTP. Provided to every request, so that a door that is not HTTP (an agent's
 * tool call) can send its calls through the very same pipeline, in process.
 */
export class ApplicationApp extends Context.Tag("Http/ApplicationApp")<
  ApplicationApp,
  HttpApp.Default<never, HttpRouter.HttpRouter.DefaultServices>
>() {}

/**
 * Answers `request` with the application, in process. `context` is added to the request's context (the caller's
 * identity travels there, never in a header an outside request could also send). The pre-response handlers that
 * the pipeline registers (limit headers, the call log) run on this response, not on the enclosing request's.
 */
export const answerInProcess = (
  request: HttpServerRequest.HttpServerRequest,
  context: Context.Context<never>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  ApplicationApp | HttpRouter.HttpRouter.DefaultServices
> =>
  Effect.gen(function* () {
    const app = yield* ApplicationApp
    const response = yield* app.pipe(
      Effect.catchAllCause((cause) => Effect.map(HttpServerError.causeResponse(cause), ([answer]) => answer))
    )
    const handler = yield* FiberRef.get(HttpApp.currentPreResponseHandlers)
    return Option.isNone(handler) ? response : yield* handler.value(request, response)
  }).pipe(
    Effect.locally(HttpApp.currentPreResponseHandlers, Option.none()),
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.provide(context),
    Effect.scoped,
    Effect.catchAllCause((cause) =>
      Effect.flatMap(HttpServerError.causeResponse(cause), ([answer]) => Effect.succeed(answer))
    )
  )
