import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ProtectedLink } from "./Article.js"

/**
 * The public error body is `{ error, message, protected_links?, limit? }`. Each error is a tagged class inside the
 * service; `wire` gives the schema that encodes it to (and documents it as) that body, with its HTTP status.
 */
const wire = <
  Self extends { readonly _tag: string },
  I extends { readonly _tag: string },
  Fields extends Schema.Struct.Fields
>(
  cls: Schema.Schema<Self, I>,
  tag: Self["_tag"],
  options: { readonly error: string; readonly status: number; readonly description: string; readonly fields: Fields }
) =>
  Schema.transform(
    Schema.Struct({
      error: Schema.Literal(options.error).annotations({ description: "Error identifier." }),
      ...options.fields
    }).annotations({ identifier: tag, description: options.description }),
    cls,
    {
      strict: false,
      decode: (body: Record<string, unknown>) => {
        const { error: _, ...rest } = body
        return { ...rest, _tag: tag }
      },
      encode: (value: Record<string, unknown>) => {
        const { _tag: _, ...rest } = value
        return { error: options.error, ...rest }
      }
    }
  ).annotations(HttpApiSchema.annotations({ status: options.status, description: options.description }))

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

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", messageOnly) {}
export const UnauthorizedBody = wire(Unauthorized, "Unauthorized", {
  error: "unauthorized",
  status: 401,
  description: "Missing, malformed, unknown or revoked credentials.",
  fields: messageOnly
})

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", messageOnly) {}
export const ForbiddenBody = wire(Forbidden, "Forbidden", {
  error: "forbidden",
  status: 403,
  description: "The credential may not make this request.",
  fields: messageOnly
})

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", messageOnly) {}
export const NotFoundBody = wire(NotFound, "NotFound", {
  error: "not_found",
  status: 404,
  description: "No such resource on the caller's account (another account's resource is reported the same way).",
  fields: messageOnly
})

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", withOptionalLimit) {}
export const ValidationErrorBody = wire(ValidationError, "ValidationError", {
  error: "validation_error",
  status: 422,
  description:
    "A parameter or body field is missing, malformed or out of bounds; limit carries the bound when one was exceeded.",
  fields: withOptionalLimit
})

export class ProtectedLinkViolation extends Schema.TaggedError<ProtectedLinkViolation>()(
  "ProtectedLinkViolation",
  withLinks
) {}
export const ProtectedLinkViolationBody = wire(ProtectedLinkViolation, "ProtectedLinkViolation", {
  error: "protected_link_violation",
  status: 422,
  description: "The edit removes, alters or forges a protected link; nothing was saved.",
  fields: withLinks
})

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", withLimit) {}
export const RateLimitedBody = wire(RateLimited, "RateLimited", {
  error: "rate_limited",
  status: 429,
  description:
    "More requests in a minute than the credential's limit (RateLimit-Limit); Retry-After gives the seconds to wait.",
  fields: withLimit
})

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", withLimit) {}
export const PayloadTooLargeBody = wire(PayloadTooLarge, "PayloadTooLarge", {
  error: "payload_too_large",
  status: 413,
  description: "The request body is larger than the server accepts.",
  fields: withLimit
})

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", messageOnly) {}
export const InternalErrorBody = wire(InternalError, "InternalError", {
  error: "internal_error",
  status: 500,
  description: "An unexpected failure; the server log has the details under the response's X-Request-Id.",
  fields: messageOnly
})

export class ReplacementConflict extends Schema.TaggedError<ReplacementConflict>()(
  "ReplacementConflict",
  messageOnly
) {}
export const ReplacementConflictBody = wire(ReplacementConflict, "ReplacementConflict", {
  error: "replacement_conflict",
  status: 409,
  description:
    "A replacement's find did not occur exactly once (or, with all, at least once); the message gives its index and how many times it occurred. Nothing was saved.",
  fields: messageOnly
})

export class DisallowedHtml extends Schema.TaggedError<DisallowedHtml>()("DisallowedHtml", messageOnly) {}
export const DisallowedHtmlBody = wire(DisallowedHtml, "DisallowedHtml", {
  error: "disallowed_html",
  status: 422,
  description:
    "The body contains dangerous content (script, iframe, object, embed, style, an on* attribute, a javascript:/data:/vbscript: URL…); the message names the first offending construct. Nothing was saved.",
  fields: messageOnly
})

export class UnsupportedImage extends Schema.TaggedError<UnsupportedImage>()("UnsupportedImage", messageOnly) {}
export const UnsupportedImageBody = wire(UnsupportedImage, "UnsupportedImage", {
  error: "unsupported_image",
  status: 422,
  description: "The uploaded file is not a JPEG, PNG, WebP, GIF or AVIF image (judged by its bytes).",
  fields: messageOnly
})

export class ImageTooLarge extends Schema.TaggedError<ImageTooLarge>()("ImageTooLarge", withLimit) {}
export const ImageTooLargeBody = wire(ImageTooLarge, "ImageTooLarge", {
  error: "image_too_large",
  status: 422,
  description: "The uploaded image is larger than 10 MiB; limit is 10485760 bytes.",
  fields: withLimit
})

export class EditLimitExceeded extends Schema.TaggedError<EditLimitExceeded>()("EditLimitExceeded", {
  ...withLimit,
  /** Seconds to the next UTC midnight; sent as the Retry-After header, not in the body. */
  retry_after: Schema.optional(Schema.Number)
}) {}
export const EditLimitExceededBody = wire(EditLimitExceeded, "EditLimitExceeded", {
  error: "edit_limit_exceeded",
  status: 429,
  description:
    "The account has made its daily number of successful article changes (API and MCP together, limit gives it); Retry-After gives the seconds to the next UTC midnight.",
  fields: withLimit
})

export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", messageOnly) {}
export const PreconditionFailedBody = wire(PreconditionFailed, "PreconditionFailed", {
  error: "precondition_failed",
  status: 412,
  description:
    "If-Match does not name the article's current revision (someone changed it meanwhile); the message names the current revision. Nothing was saved.",
  fields: messageOnly
})

export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()(
  "IdempotencyKeyInUse",
  messageOnly
) {}
export const IdempotencyKeyInUseBody = wire(IdempotencyKeyInUse, "IdempotencyKeyInUse", {
  error: "idempotency_key_in_use",
  status: 409,
  description: "A request with this Idempotency-Key is still running; retry when it has been answered.",
  fields: messageOnly
})

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  messageOnly
) {}
export const IdempotencyKeyReusedBody = wire(IdempotencyKeyReused, "IdempotencyKeyReused", {
  error: "idempotency_key_reused",
  status: 422,
  description: "This Idempotency-Key was used in the last 24 hours for a different request; use a new key.",
  fields: messageOnly
})

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", messageOnly) {}
export const MethodNotAllowedBody = wire(MethodNotAllowed, "MethodNotAllowed", {
  error: "method_not_allowed",
  status: 405,
  description: "The address does not take this method.",
  fields: messageOnly
})

export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", messageOnly) {}
export const UnavailableBody = wire(Unavailable, "Unavailable", {
  error: "unavailable",
  status: 503,
  description: "The service is starting or shutting down; retry after the seconds in Retry-After.",
  fields: messageOnly
})

/**
 * Every public error, declared once above with its status and body. The doors that do not answer through HttpApi
 * (plain routes, the agent tools) find an error's status and body here.
 */
const publicErrors: ReadonlyArray<Schema.Schema.AnyNoContext> = [
  UnauthorizedBody,
  ForbiddenBody,
  NotFoundBody,
  MethodNotAllowedBody,
  ReplacementConflictBody,
  IdempotencyKeyInUseBody,
  IdempotencyKeyReusedBody,
  PreconditionFailedBody,
  PayloadTooLargeBody,
  ValidationErrorBody,
  DisallowedHtmlBody,
  ProtectedLinkViolationBody,
  UnsupportedImageBody,
  ImageTooLargeBody,
  RateLimitedBody,
  EditLimitExceededBody,
  InternalErrorBody,
  UnavailableBody
]

/** The public body and HTTP status of a service error, exactly as the HTTP interface answers it. */
export const publicError = (error: unknown): { readonly status: number; readonly body: Record<string, unknown> } => {
  for (const schema of publicErrors) {
    if (Schema.is(schema)(error)) {
      return { status: HttpApiSchema.getStatusError(schema), body: { ...Schema.encodeSync(schema)(error) } }
    }
  }
  return publicError(new InternalError({ message: "Something went wrong on our side." }))
}
