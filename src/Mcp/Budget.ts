import { Effect, Option, Ref } from "effect"
import type { RequestAllowance } from "../Api/Middleware.js"
import { requestLimitHeaders } from "../Limits/RequestLimit.js"

/** Where an answered request left its user's limits, and the `Retry-After` its answer gave (a 429's). */
export interface CallLimits {
  readonly allowance: RequestAllowance
  readonly retryAfter: string | undefined
}

/**
 * What one POST to /mcp spends of its user's request limit, and what its answer says of it. The statement that found
 * the access token counted one request: when every message of the POST is a tool call, that count is handed over to
 * the first call (a lone call counts once); otherwise it is the POST's own, and each call counts for itself. The
 * answer carries the limit headers of the request (the POST's, or a call's) that left the fewest requests.
 */
export interface PostBudget {
  /** Counts a tool call's request: the count handed over, for the first call that takes it, else a count of its own. */
  readonly countCall: Effect.Effect<RequestAllowance>
  /** Notes where an answered call left the limits. */
  readonly note: (limits: CallLimits | undefined) => Effect.Effect<void>
  /** The limit headers of the POST's answer; a count that no call took (the protocol refused it) is the POST's. */
  readonly headers: Effect.Effect<Readonly<Record<string, string>>>
}

export const makePostBudget = (options: {
  /** The count made as the token was found. */
  readonly counted: RequestAllowance
  /** The account's article changes a day, which the headers' policy states. */
  readonly editsPerDay: number
  /** Whether every message of the POST is a tool call that makes a request of its own. */
  readonly handOver: boolean
  /** Counts one more request of the user. */
  readonly countRequest: Effect.Effect<RequestAllowance>
}): Effect.Effect<PostBudget> =>
  Effect.gen(function* () {
    const { counted, countRequest } = options
    const postLimits: CallLimits = { allowance: counted, retryAfter: undefined }
    const handedOver = yield* Ref.make(options.handOver ? Option.some(counted) : Option.none())
    const fewest = yield* Ref.make(options.handOver ? undefined : postLimits)
    const note = (limits: CallLimits | undefined) =>
      limits === undefined
        ? Effect.void
        : Ref.update(fewest, (current) =>
            current === undefined || limits.allowance.remaining <= current.allowance.remaining ? limits : current
          )
    const headersOf = ({ allowance, retryAfter }: CallLimits) => {
      const headers = requestLimitHeaders(allowance, options.editsPerDay)
      return retryAfter === undefined ? headers : { ...headers, "retry-after": retryAfter }
    }
    return {
      countCall: Effect.flatMap(
        Ref.getAndSet(handedOver, Option.none()),
        Option.match({ onNone: () => countRequest, onSome: Effect.succeed })
      ),
      note,
      headers: Effect.gen(function* () {
        if (Option.isSome(yield* Ref.get(handedOver))) yield* note(postLimits)
        const limits = yield* Ref.get(fewest)
        return limits === undefined ? {} : headersOf(limits)
      })
    }
  })
