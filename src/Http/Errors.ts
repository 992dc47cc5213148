import { HttpApiBuilder, type HttpApp, HttpIncomingMessage, HttpServerRequest, Multipart } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { Api } from "../Api.js"
import { ToolCaller } from "../Auth/CurrentCredential.js"
import { MAX_IMAGE_BYTES } from "../Domain/ArticleEdits.js"
import { type DecodeIssue, fromDecodeIssues } from "../Domain/DecodeIssues.js"
import { ImageTooLarge, InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.js"
import { isUndeclaredBody, readUndeclaredBody } from "./ChunkedBodies.js"
import { RequestDeadlines, RequestTimedOut } from "./Deadlines.js"
import { internalErrorMessage } from "./ErrorMessages.js"
import { errorResponse } from "./ErrorResponse.js"
import { bodyCapOf, MAX_MCP_BODY_BYTES, MAX_MULTIPART_PARTS } from "./RequestBodies.js"
import { RequestId } from "./RequestId.js"
import { pathOf } from "./Server.js"

/** Room for a multipart part's own headers on top of the 10 MiB image. */
const MULTIPART_PART_HEADROOM = 64 * 1024

const isTagged = (u: unknown, tag: string): u is { readonly _tag: string } =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === tag

// Error responses built here rather than failed, so that every route can answer them.
const unprocessable = (error: ValidationError) => errorResponse(error)
const imageTooLarge = (error: ImageTooLarge) => errorResponse(error)
const payloadTooLarge = (error: PayloadTooLarge) => errorResponse(error)
const internal = (error: InternalError) => errorResponse(error)

/** A route that does not exist: the JSON body every other 404 has. */
const routeNotFound = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  errorResponse(new NotFound({ message: `No route for ${request.method} ${pathOf(request.url)}.` }))
)

/** Anything unexpected: logged in full with the request id, answered with no internals. */
const internalError = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function* () {
    const requestId = yield* RequestId
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* Effect.logError("Request failed", cause)
    return internal(new InternalError({ message: internalErrorMessage(requestId, request.method) }))
  })

/** Multipart limits are raised as defects by the framework; they are the client's doing. */
const fromMultipartError = (error: { readonly reason: string; readonly cause: unknown }, cap: number) => {
  const reachedLimit = isTagged(error.cause, "ReachedLimit")
  if (error.reason === "FileTooLarge" || (error.reason === "InternalError" && reachedLimit)) {
    return imageTooLarge(new ImageTooLarge({ message: "The image is larger than 10 MiB.", limit: MAX_IMAGE_BYTES }))
  }
  if (error.reason === "BodyTooLarge") {
    return payloadTooLarge(new PayloadTooLarge({ message: "The request body is too large.", limit: cap }))
  }
  return unprocessable(new ValidationError({ message: "The multipart body could not be read." }))
}

/**
 * Request hygiene and client mistakes, for every API route:
 * - a body declared larger than the cap is refused with 413 before it is read (an undeclared one is cut off there);
 * - schema decode failures and unreadable bodies (malformed JSON, a wrong content type), which the framework
 *   reports as a 400 or as defects, are 422 `validation_error`; an image over 10 MiB is 422 `image_too_large`;
 * - an unknown route is a JSON 404, any other defect a JSON 500 without internals.
 * Declared API errors pass through to be encoded by the framework.
 */
export const ClientErrorsLive = HttpApiBuilder.middleware(
  Api,
  Effect.map(RequestDeadlines, (deadlines) => (app: HttpApp.Default) => handleClientErrors(app, deadlines))
)

const handleClientErrors = (app: HttpApp.Default, deadlines: RequestDeadlines) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // A tool call answered in process carries a body that /mcp has already capped: judged by the endpoint's own
    // limits (an 11 MiB image is image_too_large), not by the cap for bodies sent over the network.
    const inProcess = Option.isSome(yield* Effect.serviceOption(ToolCaller))
    const cap = inProcess ? MAX_MCP_BODY_BYTES : bodyCapOf(pathOf(request.url), request.headers["content-type"])
    const declared = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > cap) {
      return payloadTooLarge(
        new PayloadTooLarge({ message: `The request body is larger than ${cap} bytes.`, limit: cap })
      )
    }
    // A body without a declared length is read here, within the cap, so that one over it is answered 413.
    if (!inProcess && isUndeclaredBody(request)) {
      const read = yield* readUndeclaredBody(request, cap)
      if (Option.isNone(read)) {
        return payloadTooLarge(
          new PayloadTooLarge({ message: `The request body is larger than ${cap} bytes.`, limit: cap })
        )
      }
      return yield* withinLimits(app, deadlines, request.method, cap).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, read.value)
      )
    }
    return yield* withinLimits(app, deadlines, request.method, cap)
  })

/** The request with its deadline and body limits; client mistakes answered as such, anything else as a 500. */
const withinLimits = (app: HttpApp.Default, deadlines: RequestDeadlines, method: string, cap: number) =>
  Effect.gen(function* () {
    // A request that runs too long is answered (500 internal_error) rather than left hanging.
    const timed = deadlines.within(app)
    // No endpoint reads the body of a GET or HEAD, so its limits are set only for the methods that have one.
    const bounded =
      method === "GET" || method === "HEAD"
        ? timed
        : timed.pipe(
            // The parser counts a part's headers against this limit too; the store checks the file's exact size.
            Multipart.withMaxFileSize(Option.some(MAX_IMAGE_BYTES + MULTIPART_PART_HEADROOM)),
            // No form of this API has more than a few fields: thousands of tiny parts are refused, not parsed to the
            // timeout.
            Multipart.withMaxParts(Option.some(MAX_MULTIPART_PARTS)),
            HttpIncomingMessage.withMaxBodySize(Option.some(cap))
          )
    return yield* bounded.pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause) as Option.Option<unknown>
        if (Option.isSome(failure) && isTagged(failure.value, "HttpApiDecodeError")) {
          const { issues } = failure.value as unknown as { readonly issues: ReadonlyArray<DecodeIssue> }
          return Effect.succeed(unprocessable(fromDecodeIssues(issues)))
        }
        if (Option.isSome(failure) && isTagged(failure.value, "RouteNotFound")) return routeNotFound
        if (Option.isSome(failure) && failure.value instanceof RequestTimedOut) return internalError(cause)
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && isTagged(defect.value, "MultipartError")) {
          return Effect.succeed(fromMultipartError(defect.value as unknown as Multipart.MultipartError, cap))
        }
        if (Option.isSome(defect) && isTagged(defect.value, "RequestError")) {
          return Effect.succeed(
            unprocessable(
              new ValidationError({ message: "The request body could not be read as its content type says." })
            )
          )
        }
        // What is left are the declared API errors, which the framework encodes.
        return Cause.isDie(cause) ? internalError(cause) : Effect.failCause(cause as Cause.Cause<never>)
      })
    )
  })
