import { HttpApiMiddleware, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CurrentCredential, ToolCaller } from "../Auth/CurrentCredential.js"
import type { Credential } from "../Domain/Credential.js"
import { RateLimited, RateLimitedBody } from "../Domain/Errors.js"
import { Limits, type RequestAllowance } from "../Limits.js"

/** `RateLimit-*` headers (and `Retry-After` on a 429 that has none) for every authenticated response. */
export const withLimitHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  allowance: RequestAllowance,
  editsPerDay: number
) => {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(allowance.limit),
    "ratelimit-remaining": String(allowance.remaining),
    "ratelimit-reset": String(allowance.reset),
    "ratelimit-policy": `"requests";q=${allowance.limit};w=60, "edits";q=${editsPerDay};w=86400`
  }
  if (response.status === 429 && response.headers["retry-after"] === undefined) {
    headers["retry-after"] = String(allowance.reset)
  }
  return HttpServerResponse.setHeaders(response, headers)
}

/**
 * Counts a request of `credential` against its per-minute limit (shared by every instance: the count is kept in
 * the database), arranges for the response to carry the limit headers, and fails with 429 `rate_limited` over the
 * limit. Every door that authenticates runs it: the API through the `RequestLimit` middleware, and `/mcp`.
 */
export const admitRequest = (limits: Limits, credential: Credential, request?: object) =>
  Effect.gen(function* () {
    const allowance = yield* limits.countRequest(credential, request)
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(withLimitHeaders(response, allowance, limits.editsPerDay))
    )
    if (allowance.exceeded) {
      return yield* new RateLimited({
        message: `More than ${allowance.limit} requests in a minute; retry after ${allowance.reset} s.`,
        limit: allowance.limit
      })
    }
  })

/** The per-credential request limit of every authenticated endpoint (after `Authentication`). */
export class RequestLimit extends HttpApiMiddleware.Tag<RequestLimit>()("Limits/RequestLimit", {
  failure: RateLimitedBody
}) {}

export const RequestLimitLive = Layer.effect(
  RequestLimit,
  Effect.map(Limits, (limits) =>
    Effect.gen(function* () {
      // A tool call was counted as the request to /mcp that carries it.
      if (Option.isSome(yield* Effect.serviceOption(ToolCaller))) return
      const credential = yield* Effect.serviceOption(CurrentCredential)
      if (Option.isNone(credential)) return yield* Effect.dieMessage("RequestLimit runs after Authentication")
      // Counted already, in most cases, by the statement that found the API key.
      yield* admitRequest(limits, credential.value, yield* HttpServerRequest.HttpServerRequest)
    })
  )
)
