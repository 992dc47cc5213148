import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, Schema } from "effect"
import { Api } from "../Api.js"
import { limitOf } from "../Domain/Bounds.js"
import { InternalError, InternalErrorBody, ValidationError, ValidationErrorBody } from "../Domain/Errors.js"
import { RequestId } from "./RequestId.js"

interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const MAX_MESSAGE = 300

/** Decode messages can echo the offending value (which may be megabytes): keep them short. */
const truncate = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text)

const isTagged = (u: unknown, tag: string): u is { readonly _tag: string } =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === tag

/** The first decode issue as a 422, with `limit` when a bound was exceeded. */
export const fromDecodeIssues = (issues: ReadonlyArray<DecodeIssue>): ValidationError => {
  const first = issues[0]
  if (first === undefined) return new ValidationError({ message: "The request is not valid." })
  const where = first.path.length === 0 ? "request" : first.path.map(String).join(".")
  const limit = limitOf(first.message)
  return new ValidationError({
    message: truncate(`${where}: ${first.message}`),
    ...(limit === undefined ? {} : { limit })
  })
}

const encodeValidationError = Schema.encodeSync(ValidationErrorBody)
const encodeInternalError = Schema.encodeSync(InternalErrorBody)

/** A 422 response built here rather than failed, so that every endpoint can answer it. */
const unprocessable = (error: ValidationError) =>
  HttpServerResponse.unsafeJson(encodeValidationError(error), { status: 422 })

/** A route that does not exist: the same JSON body as any other 404. */
const routeNotFound = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerResponse.unsafeJson(
    { error: "not_found", message: `No route for ${request.method} ${request.url.split("?")[0]}.` },
    { status: 404 }
  )
)

/** Anything unexpected: logged in full with the request id, answered with no internals. */
const internalError = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function* () {
    const requestId = yield* RequestId
    yield* Effect.logError("Request failed", cause)
    const body = encodeInternalError(
      new InternalError({ message: `Something went wrong on our side. Request id: ${requestId}.` })
    )
    return HttpServerResponse.unsafeJson(body, { status: 500 })
  })

/**
 * Client mistakes are 422 `validation_error`, never the framework's 400 or a 500: schema decode failures,
 * and body-read failures (malformed JSON, a body that is not what the content type says), which the framework
 * raises as defects. An unknown route is a JSON 404; any other defect a JSON 500. Declared API errors pass
 * through to be encoded by the framework.
 */
export const ClientErrorsLive = HttpApiBuilder.middleware(Api, (app) =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause) as Option.Option<unknown>
    if (Option.isSome(failure) && isTagged(failure.value, "HttpApiDecodeError")) {
      const { issues } = failure.value as unknown as { readonly issues: ReadonlyArray<DecodeIssue> }
      return Effect.succeed(unprocessable(fromDecodeIssues(issues)))
    }
    const defect = Cause.dieOption(cause)
    if (Option.isSome(defect) && isTagged(defect.value, "RequestError")) {
      return Effect.succeed(
        unprocessable(new ValidationError({ message: "The request body could not be read as its content type says." }))
      )
    }
    if (Option.isSome(failure) && isTagged(failure.value, "RouteNotFound")) return routeNotFound
    return Cause.isDie(cause) ? internalError(cause) : Effect.failCause(cause)
  })
)
