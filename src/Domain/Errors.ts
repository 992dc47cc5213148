import { Predicate, Schema } from "effect"
import { ProtectedLink } from "./Article.js"
import { PublicError, publicClassOf } from "./PublicError.js"

/** The seconds a 503 `unavailable` tells its client to wait before it retries, unless it says otherwise. */
const RETRY_UNAVAILABLE_SECONDS = 1

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

export class Unauthorized extends PublicError<Unauthorized>()(
  "Unauthorized",
  {
    error: "unauthorized",
    status: 401,
    description:
      "Missing, malformed, unknown, revoked or expired credentials; for credentials that were sent, the message says which."
  },
  messageOnly
) {}

export class Forbidden extends PublicError<Forbidden>()(
  "Forbidden",
  {
    error: "forbidden",
    status: 403,
    description: "The credential may not make this request."
  },
  messageOnly
) {}

export class NotFound extends PublicError<NotFound>()(
  "NotFound",
  {
    error: "not_found",
    status: 404,
    description: "No such resource on the caller's account (another account's resource is reported the same way)."
  },
  messageOnly
) {}

export class ValidationError extends PublicError<ValidationError>()(
  "ValidationError",
  {
    error: "validation_error",
    status: 422,
    description:
      "A parameter or body field is missing, malformed or out of bounds; limit carries the bound when one was exceeded."
  },
  withOptionalLimit
) {}

export class ProtectedLinkViolation extends PublicError<ProtectedLinkViolation>()(
  "ProtectedLinkViolation",
  {
    error: "protected_link_violation",
    status: 422,
    description: "The edit removes, alters or forges a protected link; nothing was saved."
  },
  withLinks
) {}

export class RateLimited extends PublicError<RateLimited>()(
  "RateLimited",
  {
    error: "rate_limited",
    status: 429,
    description:
      "More requests in a minute than the credential's limit (RateLimit-Limit), or more than 100 refused credentials in a minute from one client address; Retry-After gives the seconds to wait.",
    headers: { "retry-after": "retry_after" }
  },
  {
    ...withLimit,
    /** Seconds until the credential's window (or the client address's) resets. */
    retry_after: Schema.optional(Schema.Number)
  }
) {}

export class PayloadTooLarge extends PublicError<PayloadTooLarge>()(
  "PayloadTooLarge",
  {
    error: "payload_too_large",
    status: 413,
    description: "The request body is larger than the server accepts."
  },
  withLimit
) {}

export class InternalError extends PublicError<InternalError>()(
  "InternalError",
  {
    error: "internal_error",
    status: 500,
    description: "An unexpected failure; the server log has the details under the response's X-Request-Id."
  },
  messageOnly
) {}

export class ReplacementConflict extends PublicError<ReplacementConflict>()(
  "ReplacementConflict",
  {
    error: "replacement_conflict",
    status: 409,
    description:
      "A replacement's find did not occur exactly once (or, with all, at least once); the message gives its index and how many times it occurred. Nothing was saved."
  },
  messageOnly
) {}

export class DisallowedHtml extends PublicError<DisallowedHtml>()(
  "DisallowedHtml",
  {
    error: "disallowed_html",
    status: 422,
    description:
      "The body contains dangerous content (script, iframe, object, embed, style, an on* attribute, a javascript:/data:/vbscript: URL…); the message names the first offending construct. Nothing was saved."
  },
  messageOnly
) {}

export class UnsupportedImage extends PublicError<UnsupportedImage>()(
  "UnsupportedImage",
  {
    error: "unsupported_image",
    status: 422,
    description: "The uploaded file is not a JPEG, PNG, WebP, GIF or AVIF image (judged by its bytes)."
  },
  messageOnly
) {}

export class ImageTooLarge extends PublicError<ImageTooLarge>()(
  "ImageTooLarge",
  {
    error: "image_too_large",
    status: 422,
    description: "The uploaded image is larger than 10 MiB; limit is 10485760 bytes."
  },
  withLimit
) {}

export class EditLimitExceeded extends PublicError<EditLimitExceeded>()(
  "EditLimitExceeded",
  {
    error: "edit_limit_exceeded",
    status: 429,
    description:
      "The account has made its daily number of successful article changes (API and MCP together, limit gives it); Retry-After gives the seconds to the next UTC midnight.",
    headers: { "retry-after": "retry_after" }
  },
  {
    ...withLimit,
    /** Seconds to the next UTC midnight. */
    retry_after: Schema.optional(Schema.Number)
  }
) {}

export class PreconditionFailed extends PublicError<PreconditionFailed>()(
  "PreconditionFailed",
  {
    error: "precondition_failed",
    status: 412,
    description:
      "If-Match does not name the article's current revision (someone changed it meanwhile); the message names the current revision. Nothing was saved."
  },
  messageOnly
) {}

export class IdempotencyKeyInUse extends PublicError<IdempotencyKeyInUse>()(
  "IdempotencyKeyInUse",
  {
    error: "idempotency_key_in_use",
    status: 409,
    description: "A request with this Idempotency-Key is still running; retry when it has been answered."
  },
  messageOnly
) {}

export class IdempotencyKeyReused extends PublicError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  {
    error: "idempotency_key_reused",
    status: 422,
    description: "This Idempotency-Key was used in the last 24 hours for a different request; use a new key."
  },
  messageOnly
) {}

export class MethodNotAllowed extends PublicError<MethodNotAllowed>()(
  "MethodNotAllowed",
  {
    error: "method_not_allowed",
    status: 405,
    description: "The address does not take this method."
  },
  messageOnly
) {}

export class RequestTimeout extends PublicError<RequestTimeout>()(
  "RequestTimeout",
  {
    error: "request_timeout",
    status: 408,
    description:
      "The request body stopped arriving (nothing for BODY_STALL_SECONDS), or the request did not arrive in time; the connection is closed after this answer."
  },
  messageOnly
) {}

export class Unavailable extends PublicError<Unavailable>()(
  "Unavailable",
  {
    error: "unavailable",
    status: 503,
    description:
      "The service is starting or shutting down, too busy to take the request on, or could not finish it within its deadline (REQUEST_TIMEOUT_SECONDS); retry after the seconds in Retry-After.",
    headers: { "retry-after": "retry_after" }
  },
  {
    message,
    /** Seconds to wait before a retry. */
    retry_after: Schema.optionalWith(Schema.Number, { default: () => RETRY_UNAVAILABLE_SECONDS })
  }
) {}

/** Whether a value is a public error (see `PublicError`), answered as its class says. */
export const isPublicError = (error: unknown) => publicClassOf(error) !== undefined

/** A public error's answer: its status, its body and the headers its fields give. */
export interface PublicResponse {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>
}

/**
 * The answer to a service error, exactly as the HTTP interface gives it, read from the error's own class: its status,
 * its body (encoded by its `Body`) and the headers its `answer` names (`Retry-After`); anything else is an internal
 * error. Every door answers an error with it: the API's (see Server/ClientErrors.ts), the plain routes, the agent
 * tools' refusals.
 */
export const publicError = (error: unknown): PublicResponse => {
  const cls = publicClassOf(error)
  if (cls === undefined) return publicError(new InternalError({ message: "Something went wrong on our side." }))
  const headers: Record<string, string> = {}
  for (const [header, field] of Object.entries(cls.answer.headers ?? {})) {
    const value = Predicate.hasProperty(error, field) ? error[field] : undefined
    if (value !== undefined) headers[header] = String(value)
  }
  return { status: cls.answer.status, body: Schema.encodeUnknownSync(cls.Body)(error), headers }
}
