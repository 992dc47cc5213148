import type { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { RateLimited } from "../Domain/Errors.js"
import { Limits, secondsToWindowEnd } from "./Limits.js"
import { LimitsRepo } from "./Repo.js"

/** Failed authentications allowed from one client address in a minute; past them, 429 `rate_limited`. */
export const FAILED_AUTHENTICATIONS_PER_MINUTE = 100

/**
 * What the counter keys of client addresses' failed authentications start with (the address follows), beside the
 * credentials' request counters (whose keys start with their kind, `api_key:` or `user:`).
 */
export const FAILURE_COUNTER_PREFIX = "failed_authentication:"

const counterKey = (address: string) => `${FAILURE_COUNTER_PREFIX}${address}`

/**
 * Failed authentications per client address (the connection's own address, as sign-in tells addresses apart): an API
 * key or an access token that was presented and refused is counted here, in PostgreSQL (shared by every instance,
 * one atomic upsert, in the request counters' table and windows). A valid credential never comes here, so it is
 * neither slowed nor refused, whatever its address has sent before.
 */
export class AuthFailures extends Effect.Service<AuthFailures>()("Limits/AuthFailures", {
  dependencies: [Limits.Default, LimitsRepo.Default],
  effect: Effect.gen(function* () {
    const limits = yield* Limits
    const repo = yield* LimitsRepo

    /** Counts a refused credential from the request's address; Some 429 (its Retry-After the window's end) when the address is now over the limit. */
    const count = Effect.fn("AuthFailures.count")(function* (request: HttpServerRequest.HttpServerRequest) {
      if (Option.isNone(request.remoteAddress)) return Option.none<RateLimited>()
      const key = counterKey(request.remoteAddress.value)
      const window = yield* limits.currentWindow
      const failures = yield* repo.countUnder(key, window.iso)
      // The first failure of a window clears the address's earlier ones, as a credential's first request does.
      if (failures === 1) yield* repo.deleteEarlierWindows(key, window.iso)
      if (failures <= FAILED_AUTHENTICATIONS_PER_MINUTE) return Option.none<RateLimited>()
      const retryAfter = secondsToWindowEnd(window)
      return Option.some(
        new RateLimited({
          message: `More than ${FAILED_AUTHENTICATIONS_PER_MINUTE} failed authentications in a minute from this address; retry after ${retryAfter} s with a valid credential.`,
          limit: FAILED_AUTHENTICATIONS_PER_MINUTE,
          retry_after: retryAfter
        })
      )
    })

    return { count }
  })
}) {}
