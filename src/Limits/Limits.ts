import { Clock, Effect, Option } from "effect"
import type { RequestAllowance } from "../Api/Middleware.js"
import { AppConfig } from "../Config.js"
import type { Credential } from "../Domain/Credential.js"
import { addDays, toCalendarDate } from "../Domain/Dates.js"
import { EditLimitExceeded } from "../Domain/Errors.js"
import type { AccountId } from "../Domain/Ids.js"
import { LimitsRepo } from "./Repo.js"

const WINDOW_MS = 60_000

/** Seconds from `now` to the next UTC midnight, when the daily edit quota renews. */
export const secondsToUtcMidnight = (now: number): number => {
  const midnight = Date.parse(`${addDays(toCalendarDate(new Date(now)), 1)}T00:00:00Z`)
  return Math.max(1, Math.ceil((midnight - now) / 1000))
}

/** Seconds from `window.now` until `window` ends (at least 1): when its counts start again. */
export const secondsToWindowEnd = (window: RequestWindow) =>
  Math.max(1, Math.ceil((window.start + WINDOW_MS - window.now) / 1000))

/** What the counter keys of a kind of credential start with; the id follows. */
export const counterKeyPrefix = (kind: Credential["kind"]) => `${kind}:`

/** The key a credential's requests are counted under; API keys and signed-in users never share one. */
export const credentialKey = (credential: Credential) => `${counterKeyPrefix(credential.kind)}${credential.id}`

/** The one-minute window a request is counted in. */
export interface RequestWindow {
  readonly now: number
  readonly start: number
  /** `start` as an ISO timestamp, the form the counters are kept under. */
  readonly iso: string
  /** The UTC day of `now`, the one the edit quota is counted in. */
  readonly day: string
}

export class Limits extends Effect.Service<Limits>()("Limits/Limits", {
  dependencies: [LimitsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* LimitsRepo
    const config = yield* AppConfig

    /** The window a request made now is counted in. */
    const currentWindow = Effect.map(Clock.currentTimeMillis, (now): RequestWindow => {
      const start = Math.floor(now / WINDOW_MS) * WINDOW_MS
      return { now, start, iso: new Date(start).toISOString(), day: toCalendarDate(new Date(now)) }
    })

    /**
     * Where `credential` stands once its request made `count` in `window` (counted by `countRequest`, or by the
     * statement that found an API key).
     */
    const allowanceAfter = (credential: Credential, window: RequestWindow, count: number, editsUsed: number) =>
      Effect.as(
        // The first request of a window clears the credential's earlier ones, so the table stays one row per
        // active credential without a background job.
        count === 1 ? repo.deleteEarlierWindows(credentialKey(credential), window.iso) : Effect.void,
        {
          limit: config.requestsPerMinute,
          remaining: Math.max(0, config.requestsPerMinute - count),
          reset: secondsToWindowEnd(window),
          exceeded: count > config.requestsPerMinute,
          editsRemaining: Math.max(0, config.editsPerDay - editsUsed),
          editsReset: secondsToUtcMidnight(window.now)
        } satisfies RequestAllowance
      )

    /** Counts a request of `credential` and tells where that leaves it in its current window. */
    const countRequest = (credential: Credential) =>
      Effect.flatMap(currentWindow, (window) =>
        Effect.flatMap(
          repo.countRequest(credentialKey(credential), window.iso, credential.accountId, window.day),
          ({ count, edits }) => allowanceAfter(credential, window, count, edits)
        )
      )

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

    /** The account's article changes left today (UTC): for a write's answer, after its change. */
    const editsRemaining = Effect.fn("Limits.editsRemaining")(function* (accountId: AccountId) {
      const now = yield* Clock.currentTimeMillis
      const used = yield* repo.editsUsed(accountId, toCalendarDate(new Date(now)))
      return Math.max(0, config.editsPerDay - used)
    })

    /** Deletes request windows that ended more than a minute ago (those of credentials no longer in use). */
    const pruneRequestCounters = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* repo.pruneRequestCounters(new Date(now - 2 * WINDOW_MS).toISOString())
    })

    return {
      currentWindow,
      allowanceAfter,
      countRequest,
      takeEdit,
      checkEdit,
      editsRemaining,
      pruneRequestCounters,
      editsPerDay: config.editsPerDay
    }
  })
}) {}
