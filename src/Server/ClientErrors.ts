import {
  HttpApiBuilder,
  HttpApiError,
  type HttpApp,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  Multipart
} from "@effect/platform"
import { Cause, Effect, Either, Layer, Option, Predicate } from "effect"
import { Api } from "../Api.js"
import { MAX_IMAGE_BYTES } from "../Domain/ArticleEdits.js"
import { fromDecodeIssues } from "../Domain/DecodeIssues.js"
import {
  ImageTooLarge,
  InternalError,
  isPublicError,
  NotFound,
  PayloadTooLarge,
  ValidationError
} from "../Domain/Errors.js"
import { isNoRecord } from "../Domain/Ids.js"
import { internalErrorMessage, malformedJsonMessage } from "../Http/ErrorMessages.js"
import { errorResponse, unavailableResponse } from "../Http/ErrorResponse.js"
import { MAX_MCP_BODY_BYTES, MAX_MULTIPART_PARTS } from "../Http/RequestBodies.js"
import { RequestId } from "../Http/RequestId.js"
import { pathOf } from "../Http/RequestPath.js"
import { RequestDeadlines, RequestTimedOut } from "./Deadlines.js"
import { answersJson, methodsAt, pageMethodNotAllowed, pageNotFound, type Router } from "./Unrouted.js"

/** Room for a multipart part's own headers on top of the 10 MiB image. */
const MULTIPART_PART_HEADROOM = 64 * 1024

/**
 * A route that does not exist: under the API (and MCP, OAuth, …) the JSON body every other 404 has; under the web
 * pages an HTML page, 405 when the address takes other methods (a form's address opened with GET) and 404 when it
 * names nothing.
 */
const routeNotFound = (router: Router) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = pathOf(request.url)
    if (answersJson(path)) {
      return errorResponse(new NotFound({ message: `No route for ${request.method} ${path}.` }))
    }
    const allowed = yield* methodsAt(router, path)
    return allowed.length === 0 ? pageNotFound() : pageMethodNotAllowed(request.method, allowed)
  })

/** Anything unexpected: logged in full with the request id, answered with no internals. */
const internalError = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function* () {
    const requestId = yield* RequestId
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* Effect.logError("Request failed", cause)
    return errorResponse(new InternalError({ message: internalErrorMessage(requestId, request.method) }))
  })

/**
 * A request stopped at its deadline: the service was too busy to answer it in time (a client's mistake it is not, nor
 * a defect), so it is 503 `unavailable` with `Retry-After`, and logged as a failure with its request id. Its work was
 * interrupted, and a change's transaction rolled back with it.
 */
const pastDeadline = (cause: Cause.Cause<unknown>, timedOut: RequestTimedOut) =>
  Effect.gen(function* () {
    const requestId = yield* RequestId
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* Effect.logError("Request failed", cause)
    const retry =
      request.method === "GET" || request.method === "HEAD"
        ? "retry in a second"
        : "retry in a second, with the same Idempotency-Key to have the change applied at most once"
    return unavailableResponse(`${timedOut.message} The service is busy; ${retry}. Request id: ${requestId}.`)
  })

/** Multipart limits are raised as defects by the framework; they are the client's doing. */
const fromMultipartError = (error: Multipart.MultipartError, cap: number) => {
  const reachedLimit = Predicate.isTagged(error.cause, "ReachedLimit")
  if (error.reason === "FileTooLarge" || (error.reason === "InternalError" && reachedLimit)) {
    return errorResponse(new ImageTooLarge({ message: "The image is larger than 10 MiB.", limit: MAX_IMAGE_BYTES }))
  }
  if (error.reason === "BodyTooLarge") {
    return errorResponse(new PayloadTooLarge({ message: "The request body is too large.", limit: cap }))
  }
  return errorResponse(new ValidationError({ message: "The multipart body could not be read." }))
}

/**
 * Request hygiene and client mistakes, for every API route:
 * - schema decode failures and unreadable bodies (malformed JSON, a wrong content type), which the framework
 *   reports as a 400 or as defects, are 422 `validation_error`; an image over 10 MiB is 422 `image_too_large`;
 * - an unknown route is a JSON 404 (under the web pages an HTML 404, or 405 for an address that takes other methods:
 *   see Unrouted.ts), any other defect a JSON 500 without internals;
 * - a declared error is answered by `errorResponse`, as every other door answers it: its status and body, and the
 *   headers its fields give (Retry-After), which the framework's encoder, writing bodies only, would leave out.
 */
export const ClientErrorsLive = HttpApiBuilder.middleware(
  Api,
  Effect.map(
    Effect.all([RequestDeadlines, HttpApiBuilder.Router]),
    ([deadlines, router]) =>
      (app: HttpApp.Default) =>
        handleClientErrors(app, deadlines, router)
  )
  // The server's one router (layers are built once), whose routes tell what an address takes.
).pipe(Layer.provide(HttpApiBuilder.Router.Live))

const handleClientErrors = (app: HttpApp.Default, deadlines: RequestDeadlines, router: Router) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // The body cap was set for the request as it came in (see `fromNetwork`).
    const cap = Number(Option.getOrElse(yield* HttpIncomingMessage.MaxBodySize, () => MAX_MCP_BODY_BYTES))
    // A request that runs too long is answered (503 unavailable) rather than left hanging.
    const timed = deadlines.within(app)
    // No endpoint reads the body of a GET or HEAD, so its limits are set only for the methods that have one.
    const bounded =
      request.method === "GET" || request.method === "HEAD"
        ? timed
        : timed.pipe(
            // The parser counts a part's headers against this limit too; the store checks the file's exact size.
            Multipart.withMaxFileSize(Option.some(MAX_IMAGE_BYTES + MULTIPART_PART_HEADROOM)),
            // No form of this API has more than a few fields: thousands of tiny parts are refused, not parsed to the
            // timeout.
            Multipart.withMaxParts(Option.some(MAX_MULTIPART_PARTS))
          )
    return yield* bounded.pipe(Effect.catchAllCause((cause) => answerOf(cause, cap, router)))
  })

/**
 * The answer to a request that failed. The framework types the app as failing with nothing, while it fails with the
 * declared errors and its own; so the failure is read as `unknown` and narrowed here.
 */
const answerOf = (cause: Cause.Cause<unknown>, cap: number, router: Router) =>
  Either.match(Cause.failureOrCause(cause), {
    onLeft: (failure) => answerFailure(failure, cause, router),
    onRight: (rest) => answerDefect(rest, cap)
  })

const answerFailure = (failure: unknown, cause: Cause.Cause<unknown>, router: Router) => {
  if (failure instanceof HttpApiError.HttpApiDecodeError) {
    // A path id that cannot name a record is answered as one that does not exist.
    const noRecord = failure.issues.find((issue) => isNoRecord(issue.message))
    if (noRecord !== undefined) return Effect.succeed(errorResponse(new NotFound({ message: noRecord.message })))
    return Effect.succeed(errorResponse(fromDecodeIssues(failure.issues)))
  }
  if (failure instanceof HttpServerError.RouteNotFound) return routeNotFound(router)
  if (failure instanceof RequestTimedOut) return pastDeadline(cause, failure)
  // A declared error: its status, its body and its headers (Retry-After), as every other door answers it.
  if (isPublicError(failure)) return Effect.succeed(errorResponse(failure))
  return internalError(cause)
}

/** A JSON body that is not JSON: what is wrong and where, read again from the body (the request keeps its text). */
const malformedJson = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
  return errorResponse(new ValidationError({ message: malformedJsonMessage(text) }))
})

/** A cause without a failure: a defect, or an interruption, which is passed on. */
const answerDefect = (cause: Cause.Cause<never>, cap: number) => {
  const defect = Option.getOrUndefined(Cause.dieOption(cause))
  if (defect instanceof Multipart.MultipartError) return Effect.succeed(fromMultipartError(defect, cap))
  if (defect instanceof HttpServerError.RequestError) {
    if (defect.reason === "Decode" && defect.cause instanceof SyntaxError) return malformedJson
    return Effect.succeed(
      errorResponse(new ValidationError({ message: "The request body could not be read as its content type says." }))
    )
  }
  return Cause.isDie(cause) ? internalError(cause) : Effect.failCause(cause)
}
