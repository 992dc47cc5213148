import {
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpServerRequest,
  OpenApi
} from "@effect/platform"
import { Context, Effect, Option, Schema } from "effect"
import type { AuditEntry, CallNote } from "../Domain/CallLog.js"
import type { CallOrigin, Credential } from "../Domain/Credential.js"
import { RateLimited, Unauthorized, ValidationError } from "../Domain/Errors.js"

/** Where a credential stands in its current one-minute window, once the request being served is counted. */
export interface RequestAllowance {
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly reset: number
  readonly exceeded: boolean
  /** The account's article changes left today (UTC), and the seconds until the quota renews at midnight UTC. */
  readonly editsRemaining: number
  readonly editsReset: number
}

/** Who makes the request being served, through which door, and where that leaves their request limit. */
export interface Caller {
  readonly credential: Credential
  readonly origin: CallOrigin
  /** The request was counted as it was authenticated; `RequestLimit` judges the count. */
  readonly requests: RequestAllowance
}

/** What the call log records a call as: the method and path of an HTTP request, or the name of a tool. */
export interface CallName {
  readonly method: string | null
  readonly path: string | null
  readonly tool: string | null
}

/**
 * The door a request came through, provided by that door: the HTTP server for a request from the network, the agent
 * interface for each tool call it answers in process. The pipeline asks the door who is calling and what to call
 * the call, and tells it where the answered call left the caller's limits; no middleware asks which door it is. A
 * request that came through no door authenticates no one.
 */
export class Door extends Context.Reference<Door>()("Api/Door", {
  defaultValue: (): {
    readonly authenticate: Effect.Effect<Caller, Unauthorized | RateLimited, HttpServerRequest.HttpServerRequest>
    readonly callName: (request: HttpServerRequest.HttpServerRequest) => CallName
    /**
     * Told, as the answer leaves, where it left the caller's limits (what its limit headers state): a door that
     * reports them otherwise than in headers (a tool result's `_meta`) takes them here as a value.
     */
    readonly limitsLeft: (allowance: RequestAllowance) => Effect.Effect<void>
  } => ({
    authenticate: Effect.fail(new Unauthorized({ message: "The request came through no door that authenticates." })),
    callName: (request) => ({ method: request.method, path: null, tool: null }),
    limitsLeft: () => Effect.void
  })
}) {}

/** The caller of the request being served, provided by the `Authentication` middleware. */
export class CurrentCaller extends Context.Tag("Api/CurrentCaller")<CurrentCaller, Caller>() {}

/** The credential of the request being served. */
export const CurrentCredential: Effect.Effect<Credential, never, CurrentCaller> = Effect.map(
  CurrentCaller,
  (caller) => caller.credential
)

/**
 * Who is calling: an API key (`Authorization: Bearer <key>`, read first when present, or `X-API-Key`), or, for an
 * agent's tool call, the signed-in user it runs for. A missing, malformed, unknown or revoked key is a 401, even when
 * the other header holds a valid one (a refused key's says why); past too many refused keys from one client address
 * in a minute, a refused key is a 429 `rate_limited`. The request is counted against its credential's limit here.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Api/Authentication", {
  failure: Schema.Union(Unauthorized.Body, RateLimited.Body),
  provides: CurrentCaller,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Authorization: Bearer <API key>. Read first when present.")
    ),
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "X-API-Key: <API key>.")
    )
  }
}) {}

/**
 * The call being served, as the call log will record it. A change that commits writes its row in its own
 * transaction (`entry(200)`, then `markRecorded`), so that a saved change is never missing from the log; every other
 * call is recorded when its response leaves (a read in the next batch of reads, see `AuditLog.recordRead`). A call
 * answered with a 5xx is recorded when it leaves even if it had marked its row: that transaction did not commit, or
 * its outcome is unknown.
 */
export interface CallRecord {
  /** The call's row as it ends with `status`; a change passes the revision it saved. */
  readonly entry: (status: number, saved?: { readonly revision: number }) => Effect.Effect<AuditEntry>
  readonly markRecorded: Effect.Effect<void>
  /** Says what the call is when it saves nothing: a preview, or the replay of an earlier answer (kept if it succeeds). */
  readonly note: (note: CallNote) => Effect.Effect<void>
}

/** The call being served, provided by the `CallLog` middleware. */
export class CurrentCall extends Context.Tag("Api/CurrentCall")<CurrentCall, CallRecord>() {}

/** Notes what the call being served is (see `CallRecord.note`); nothing outside a call. */
export const noteCall = (note: CallNote) =>
  Effect.flatMap(Effect.serviceOption(CurrentCall), (call) =>
    Option.isSome(call) ? call.value.note(note) : Effect.void
  )

/** Records every authenticated call, an agent's tool calls included (after `Authentication`). */
export class CallLog extends HttpApiMiddleware.Tag<CallLog>()("Api/CallLog", { provides: CurrentCall }) {}

/** The per-credential request limit of every authenticated endpoint (after `Authentication`). */
export class RequestLimit extends HttpApiMiddleware.Tag<RequestLimit>()("Api/RequestLimit", {
  failure: RateLimited.Body
}) {}

/**
 * The content types an endpoint's body may have (after `Authentication`): JSON, and multipart where the endpoint's
 * payload has a multipart form. Another or a missing content type is 422 `validation_error` saying which it takes,
 * before the body is read, rather than a misleading message about its fields; JSON nested too deep is refused too.
 */
export class RequestBody extends HttpApiMiddleware.Tag<RequestBody>()("Api/RequestBody", {
  failure: ValidationError.Body,
  provides: HttpServerRequest.HttpServerRequest
}) {}

/**
 * The middleware chain of every authenticated group, the same for an HTTP request and an agent's tool call:
 * `Authentication` (who calls; the request is counted), then `CallLog` (the call is recorded, whatever its outcome),
 * then `RequestLimit` (the per-credential limit and its headers), then `RequestBody` (the body's content type and
 * nesting). The framework runs a group's middleware last-added first.
 */
export const authenticated = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>
) => group.middleware(RequestBody).middleware(RequestLimit).middleware(CallLog).middleware(Authentication)
