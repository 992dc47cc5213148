import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ProtectedLink } from "./Article.js"

/** How a service error is answered: the `error` identifier of its body, its HTTP status, and what it means. */
export interface PublicAnswer {
  readonly error: string
  readonly status: number
  readonly description: string
  /** Fields of the error that stay inside the service (sent as a header, say), not in the body. */
  readonly internal?: ReadonlyArray<string>
}

/** A public error class: a tagged error that says, as its static `answer`, how it is answered. */
interface PublicErrorClass<Self, I, Fields extends Schema.Struct.Fields> extends Schema.Schema<Self, I> {
  readonly _tag: string
  readonly fields: Fields
  readonly answer: PublicAnswer
}

/**
 * The public error body is `{ error, message, protected_links?, limit? }`. Each error is declared once, below, as a
 * tagged class whose static `answer` gives its identifier, status and meaning; `wire` derives from it the schema
 * that encodes it to (and documents it as) that body, with its HTTP status.
 */
const wire = <
  Self extends { readonly _tag: string },
  I extends { readonly _tag: string },
  Fields extends Schema.Struct.Fields
>(
  cls: PublicErrorClass<Self, I, Fields>
) => {
  const { error, status, description, internal = [] } = cls.answer
  const { _tag: _, ...fields } = cls.fields
  const bodyFields = Object.fromEntries(Object.entries(fields).filter(([name]) => !internal.includes(name))) as Omit<
    Fields,
    "_tag"
  >
  const name = cls._tag
  return Schema.transform(
    Schema.Struct({
      error: Schema.Literal(error).annotations({ description: "Error identifier." }),
      ...bodyFields
    }).annotations({ identifier: name, description }),
    cls,
    {
      strict: false,
      decode: (body: Record<string, unknown>) => {
        const { error: _, ...rest } = body
        return { ...rest, _tag: name }
      },
      encode: (value: Record<string, unknown>) => {
        const { _tag: _, ...rest } = value
        return { error, ...rest }
      }
    }
  ).annotations(HttpApiSchema.annotations({ status, description }))
}

const message = Schema.String.annotations({ description: "Human-readable text." })
const limit = Schema.Number.pipe(Schema.int()).annotations({ description: "The limit that was exceeded." })
const messageOnly = { message }
const withLimit = { message, limit }
const withOptionalLimit = { message, limit: Schema.optional(limit) }
const protectedLinks = Schema.Array(ProtectedLink).annotations({ description: "The protected links concerned." })
const withLinks = { message, protected_links: protectedLinks }

/**
 * The one shape every error body has (`Error` in the OpenAPI document). Each error below is this body with its own
 * `error` identifier; a response status of the document narrows `error` to the identifiers it can carry.
 */
export const ErrorBody = Schema.Struct({
  error: Schema.String.annotations({
    description: "Error identifier, stable for programs to act on; each response status lists the ones it carries."
  }),
  message: message.annotations({ description: "Human-readable text that says how to fix the request." }),
  protected_links: Schema.optional(protectedLinks),
  limit: Schema.optional(limit)
}).annotations({
  identifier: "Error",
  description:
    "Every error answer. `protected_links` comes with protected_link_violation, `limit` with errors about a bound or a limit."
})

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "unauthorized",
    status: 401,
    description:
      "Missing, malformed, unknown, revoked or expired credentials; for credentials that were sent, the message says which."
  }
}
export const UnauthorizedBody = wire(Unauthorized)

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "forbidden",
    status: 403,
    description: "The credential may not make this request."
  }
}
export const ForbiddenBody = wire(Forbidden)

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "not_found",
    status: 404,
    description: "No such resource on the caller's account (another account's resource is reported the same way)."
  }
}
export const NotFoundBody = wire(NotFound)

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", withOptionalLimit) {
  static readonly answer: PublicAnswer = {
    error: "validation_error",
    status: 422,
    description:
      "A parameter or body field is missing, malformed or out of bounds; limit carries the bound when one was exceeded."
  }
}
export const ValidationErrorBody = wire(ValidationError)

export class ProtectedLinkViolation extends Schema.TaggedError<ProtectedLinkViolation>()(
  "ProtectedLinkViolation",
  withLinks
) {
  static readonly answer: PublicAnswer = {
    error: "protected_link_violation",
    status: 422,
    description: "The edit removes, alters or forges a protected link; nothing was saved."
  }
}
export const ProtectedLinkViolationBody = wire(ProtectedLinkViolation)

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", withLimit) {
  static readonly answer: PublicAnswer = {
    error: "rate_limited",
    status: 429,
    description:
      "More requests in a minute than the credential's limit (RateLimit-Limit), or more than 100 refused credentials in a minute from one client address; Retry-After gives the seconds to wait."
  }
}
export const RateLimitedBody = wire(RateLimited)

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", withLimit) {
  static readonly answer: PublicAnswer = {
    error: "payload_too_large",
    status: 413,
    description: "The request body is larger than the server accepts."
  }
}
export const PayloadTooLargeBody = wire(PayloadTooLarge)

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "internal_error",
    status: 500,
    description: "An unexpected failure; the server log has the details under the response's X-Request-Id."
  }
}
export const InternalErrorBody = wire(InternalError)

export class ReplacementConflict extends Schema.TaggedError<ReplacementConflict>()("ReplacementConflict", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "replacement_conflict",
    status: 409,
    description:
      "A replacement's find did not occur exactly once (or, with all, at least once); the message gives its index and how many times it occurred. Nothing was saved."
  }
}
export const ReplacementConflictBody = wire(ReplacementConflict)

export class DisallowedHtml extends Schema.TaggedError<DisallowedHtml>()("DisallowedHtml", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "disallowed_html",
    status: 422,
    description:
      "The body contains dangerous content (script, iframe, object, embed, style, an on* attribute, a javascript:/data:/vbscript: URL…); the message names the first offending construct. Nothing was saved."
  }
}
export const DisallowedHtmlBody = wire(DisallowedHtml)

export class UnsupportedImage extends Schema.TaggedError<UnsupportedImage>()("UnsupportedImage", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "unsupported_image",
    status: 422,
    description: "The uploaded file is not a JPEG, PNG, WebP, GIF or AVIF image (judged by its bytes)."
  }
}
export const UnsupportedImageBody = wire(UnsupportedImage)

export class ImageTooLarge extends Schema.TaggedError<ImageTooLarge>()("ImageTooLarge", withLimit) {
  static readonly answer: PublicAnswer = {
    error: "image_too_large",
    status: 422,
    description: "The uploaded image is larger than 10 MiB; limit is 10485760 bytes."
  }
}
export const ImageTooLargeBody = wire(ImageTooLarge)

export class EditLimitExceeded extends Schema.TaggedError<EditLimitExceeded>()("EditLimitExceeded", {
  ...withLimit,
  /** Seconds to the next UTC midnight; sent as the Retry-After header, not in the body. */
  retry_after: Schema.optional(Schema.Number)
}) {
  static readonly answer: PublicAnswer = {
    error: "edit_limit_exceeded",
    status: 429,
    description:
      "The account has made its daily number of successful article changes (API and MCP together, limit gives it); Retry-After gives the seconds to the next UTC midnight.",
    internal: ["retry_after"]
  }
}
export const EditLimitExceededBody = wire(EditLimitExceeded)

export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "precondition_failed",
    status: 412,
    description:
      "If-Match does not name the article's current revision (someone changed it meanwhile); the message names the current revision. Nothing was saved."
  }
}
export const PreconditionFailedBody = wire(PreconditionFailed)

export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "idempotency_key_in_use",
    status: 409,
    description: "A request with this Idempotency-Key is still running; retry when it has been answered."
  }
}
export const IdempotencyKeyInUseBody = wire(IdempotencyKeyInUse)

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  messageOnly
) {
  static readonly answer: PublicAnswer = {
    error: "idempotency_key_reused",
    status: 422,
    description: "This Idempotency-Key was used in the last 24 hours for a different request; use a new key."
  }
}
export const IdempotencyKeyReusedBody = wire(IdempotencyKeyReused)

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "method_not_allowed",
    status: 405,
    description: "The address does not take this method."
  }
}
export const MethodNotAllowedBody = wire(MethodNotAllowed)

export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "request_timeout",
    status: 408,
    description:
      "The request body stopped arriving (nothing for BODY_STALL_SECONDS), or the request did not arrive in time; the connection is closed after this answer."
  }
}
export const RequestTimeoutBody = wire(RequestTimeout)

export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", messageOnly) {
  static readonly answer: PublicAnswer = {
    error: "unavailable",
    status: 503,
    description:
      "The service is starting or shutting down, too busy to take the request on, or could not finish it within its deadline (REQUEST_TIMEOUT_SECONDS); retry after the seconds in Retry-After."
  }
}
export const UnavailableBody = wire(Unavailable)

/** The public error class of a value, when it is one (see `PublicAnswer`). */
const publicClassOf = (error: unknown) => {
  const cls: unknown = typeof error === "object" && error !== null ? error.constructor : undefined
  return typeof cls === "function" && "answer" in cls && "fields" in cls
    ? (cls as unknown as PublicErrorClass<{ readonly _tag: string }, { readonly _tag: string }, Schema.Struct.Fields>)
    : undefined
}

/**
 * The public body and HTTP status of a service error, exactly as the HTTP interface answers it, read from the error's
 * own class; anything else is an internal error. The doors that do not answer through HttpApi (plain routes, the
 * agent tools' refusals) answer with it.
 */
export const publicError = (error: unknown): { readonly status: number; readonly body: Record<string, unknown> } => {
  const cls = publicClassOf(error)
  if (cls === undefined) return publicError(new InternalError({ message: "Something went wrong on our side." }))
  const { _tag: _, ...fields } = Schema.encodeSync(cls)(error as { readonly _tag: string }) as Record<string, unknown>
  const internal = cls.answer.internal ?? []
  const body = Object.fromEntries(Object.entries(fields).filter(([name]) => !internal.includes(name)))
  return { status: cls.answer.status, body: { error: cls.answer.error, ...body } }
}
