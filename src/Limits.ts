import { Clock, Effect, Option } from "effect"
import { AppConfig } from "./Config.js"
import type { Credential } from "./Domain/Credential.js"
import { addDays, toCalendarDate } from "./Domain/Dates.js"
import { EditLimitExceeded } from "./Domain/Errors.js"
import type { AccountId } from "./Domain/Ids.js"
import { LimitsRepo } from "./Limits/Repo.js"

const WINDOW_MS = 60_000

/** Where a credential stands in its current one-minute window. */
export interface RequestAllowance {
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly reset: number
  readonly exceeded: boolean
}

/** Seconds from `now` to the next UTC midnight, when the daily edit quota renews. */
export const secondsToUtcMidnight = (now: number): number => {
  const midnight = Date.parse(`${addDays(toCalendarDate(new Date(now)), 1)}T00:00:00Z`)
  return Math.max(1, Math.ceil((midnight - now) / 1000))
}

/** The key a credential's requests are counted under; API keys and signed-in users never share one. */
export const credentialKey = (credential: Credential) => `${credential.kind}:${credential.id}`

export class Limits extends Effect.Service<Limits>()("Limits", {
  dependencies: [LimitsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* LimitsRepo
    const config = yield* AppConfig

    /** Counts a request of `credential` and tells whether it is within the per-minute limit. */
    const countRequest = Effect.fn("Limits.countRequest")(function* (credential: Credential) {
      const now = yield* Clock.currentTimeMillis
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS
      const key = credentialKey(credential)
      const window = new Date(windowStart).toISOString()
      const { count } = yield* repo.countRequest(key, window)
      // The first request of a window clears the credential's earlier ones, so the table stays one row per
      // active credential without a background job.
      if (count === 1) yield* repo.deleteEarlierWindows(key, window)
      return {
        limit: config.requestsPerMinute,
        remaining: Math.max(0, config.requestsPerMinute - count),
        reset: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
        exceeded: count > config.requestsPerMinute
      } satisfies RequestAllowance
    })

    const exceeded = (now: number) =>
      new EditLimitExceeded({
        message: `The account has made its ${config.editsPerDay} article changes for today (UTC); try again after midnight UTC.`,
        limit: config.editsPerDay,
        retry_after: secondsToUtcMidnight(now)
      })

    /** Fails as `takeEdit` would, without using anything: for a preview of a change. */
    const checkEdit = Effect.fn("Limits.checkEdit")(function* (accountId: AccountId) {
      const now = yield* Clock.currentTimeMillis
      const used = yield* repo.editsUsed(accountId, toCalendarDate(new Date(now)))
      if (used >= config.editsPerDay) return yield* exceeded(now)
    })

    /** Uses one unit of the account's daily edit quota; call it inside the edit's transaction. */
    const takeEdit = Effect.fn("Limits.takeEdit")(function* (accountId: AccountId) {
      const now = yield* Clock.currentTimeMillis
      const taken = yield* repo.takeEdit(accountId, toCalendarDate(new Date(now)), config.editsPerDay)
      if (Option.isNone(taken)) return yield* exceeded(now)
    })

    /** Deletes request windows that ended more than a minute ago (those of credentials no longer in use). */
    const pruneRequestCounters = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* repo.pruneRequestCounters(new Date(now - 2 * WINDOW_MS).toISOString())
    })

    return { countRequest, takeEdit, checkEdit, pruneRequestCounters, editsPerDay: config.editsPerDay }
  })
}) {}
