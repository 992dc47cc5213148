/**
 * When a webhook delivery is tried again (CONTRACT "Events and webhooks", after Standard Webhooks' schedule): after
 * about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then daily, until 3 days have passed since the delivery was made.
 */
const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const RETRY_DELAYS_MS: ReadonlyArray<number> = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR
]

/** How long deliveries are tried, and how long an endpoint may fail before it is disabled. */
export const GIVE_UP_AFTER_MS = 3 * DAY

/**
 * When to make the next attempt of a delivery made at `createdAt` whose attempt number `attempts` (from 1) has just
 * failed at `now`; undefined when the schedule has ended (the next would come more than 3 days after the delivery).
 */
export const nextAttemptAt = (createdAt: number, attempts: number, now: number): number | undefined => {
  const delay = RETRY_DELAYS_MS[attempts - 1] ?? DAY
  const next = now + delay
  return next - createdAt > GIVE_UP_AFTER_MS ? undefined : next
}

/** Whether an endpoint failing since `failingSince` has failed long enough, at `now`, to be disabled. */
export const failedTooLong = (failingSince: number, now: number): boolean => now - failingSince >= GIVE_UP_AFTER_MS
