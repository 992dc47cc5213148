import { HttpApp, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CurrentCaller, Door, type RequestAllowance, RequestLimit } from "../Api/Middleware.js"
import { RateLimited } from "../Domain/Errors.js"
import { Limits } from "./Limits.js"

/** The `RateLimit-Limit`, `-Remaining`, `-Reset` and `-Policy` headers of a response to a counted request. */
export const requestLimitHeaders = (allowance: RequestAllowance, editsPerDay: number): Record<string, string> => ({
  "ratelimit-limit": String(allowance.limit),
  "ratelimit-remaining": String(allowance.remaining),
  "ratelimit-reset": String(allowance.reset),
  "ratelimit-policy": `"requests";q=${allowance.limit};w=60, "edits";q=${editsPerDay};w=86400`
})

/** The `RateLimit-*` headers of a response to a counted request, as `withLimitHeaders` sets them. */
const limitHeaders = (allowance: RequestAllowance, editsPerDay: number): Record<string, string> => ({
  ...requestLimitHeaders(allowance, editsPerDay),
  // Both quotas as they stand after this request: requests left in the minute, article changes left today.
  ratelimit: `"requests";r=${allowance.remaining};t=${allowance.reset}, "edits";r=${allowance.editsRemaining};t=${allowance.editsReset}`
})

/** `RateLimit-*` headers for every authenticated response. */
export const withLimitHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  allowance: RequestAllowance,
  editsPerDay: number
) => HttpServerResponse.setHeaders(response, limitHeaders(allowance, editsPerDay))

/** The 429 `rate_limited` of a request over the limit; its `Retry-After` is the seconds until the window resets. */
export const rateLimited = (allowance: RequestAllowance) =>
  new RateLimited({
    message: `More than ${allowance.limit} requests in a minute; retry after ${allowance.reset} s.`,
    limit: allowance.limit,
    retry_after: allowance.reset
  })

/**
 * Judges a counted request: the response will carry the limit headers, and a request over the limit fails with 429
 * `rate_limited`. Every authenticated API request and tool call is judged here. `limitsLeft` is told what the
 * headers state, as the response leaves.
 */
export const admit = (
  allowance: RequestAllowance,
  editsPerDay: number,
  /** The edits left now: read again for a write's answer, whose change may have used one. */
  editsRemaining: Effect.Effect<number>,
  limitsLeft: (allowance: RequestAllowance) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const leftAfter = (
      request: HttpServerRequest.HttpServerRequest,
      response: HttpServerResponse.HttpServerResponse
    ): Effect.Effect<RequestAllowance> =>
      request.method === "GET" || request.method === "HEAD" || response.status >= 300
        ? Effect.succeed(allowance)
        : editsRemaining.pipe(
            // This runs after the handler: a change has committed by now, with its call-log row and its kept answer,
            // so its own answer is the truth, and it is sent. A read that fails here (the database gone since the
            // commit) gives the count as the request was authenticated (one too many, when the change used one)
            // rather than turn that answer into an error.
            Effect.catchAllDefect((defect) =>
              Effect.as(
                Effect.logWarning("Could not read the edits left for the limit headers", defect),
                allowance.editsRemaining
              )
            ),
            Effect.map((left) => ({ ...allowance, editsRemaining: left }))
          )
    yield* HttpApp.appendPreResponseHandler((request, response) =>
      leftAfter(request, response).pipe(
        Effect.tap(limitsLeft),
        Effect.map((left) => withLimitHeaders(response, left, editsPerDay))
      )
    )
    if (allowance.exceeded) return yield* rateLimited(allowance)
  })

export const RequestLimitLive = Layer.effect(
  RequestLimit,
  Effect.map(Limits, (limits) =>
    Effect.gen(function* () {
      const caller = yield* Effect.serviceOption(CurrentCaller)
      if (Option.isNone(caller)) return yield* Effect.dieMessage("RequestLimit runs after Authentication")
      const door = yield* Door
      // Counted as it was authenticated, whichever door it came through.
      yield* admit(
        caller.value.requests,
        limits.editsPerDay,
        limits.editsRemaining(caller.value.credential.accountId),
        door.limitsLeft
      )
    })
  )
)
