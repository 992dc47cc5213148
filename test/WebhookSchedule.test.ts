// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { failedTooLong, GIVE_UP_AFTER_MS, nextAttemptAt, RETRY_DELAYS_MS } from "../src/Domain/WebhookSchedule.js"

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** The times of every attempt of a delivery made at 0 whose attempts all fail at once, until the schedule ends. */
const schedule = () => {
  const times = [0]
  for (;;) {
    const next = nextAttemptAt(0, times.length, times[times.length - 1]!)
    if (next === undefined) return times
    times.push(next)
  }
}

describe("the webhook retry schedule", () => {
  it("retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h", () => {
    const times = schedule()
    const delays = times.slice(1).map((time, i) => Duration.format(Duration.millis(time - times[i]!)))
    assert.deepStrictEqual(delays.slice(0, 7), ["5s", "5m", "30m", "2h", "5h", "10h", "10h"])
    assert.strictEqual(RETRY_DELAYS_MS.length, 7)
  })

  it("then daily, until 3 days have passed since the delivery", () => {
    const times = schedule()
    const delays = times.slice(1).map((time, i) => time - times[i]!)
    // After the seven delays (about 27 h 35 min), one attempt a day fits before the third day ends.
    assert.deepStrictEqual(delays.slice(7), [DAY])
    const last = times[times.length - 1]!
    assert.isAtMost(last, GIVE_UP_AFTER_MS)
    assert.isAbove(last + DAY, GIVE_UP_AFTER_MS)
    assert.strictEqual(times.length, 9)
  })

  it("counts from the failed attempt's time: a late attempt moves the next one", () => {
    assert.strictEqual(nextAttemptAt(0, 1, 7 * SECOND), 12 * SECOND)
    assert.strictEqual(nextAttemptAt(0, 2, 20 * SECOND), 20 * SECOND + 5 * MINUTE)
  })

  it("ends when the next attempt would come more than 3 days after the delivery, not at or before", () => {
    assert.strictEqual(nextAttemptAt(0, 8, 2 * DAY), 3 * DAY)
    assert.isUndefined(nextAttemptAt(0, 8, 2 * DAY + 1))
    assert.isUndefined(nextAttemptAt(0, 1, 3 * DAY))
    assert.strictEqual(nextAttemptAt(0, 1, 3 * DAY - 5 * SECOND), 3 * DAY)
  })

  it("disables an endpoint once it has failed for 3 days", () => {
    const since = Date.UTC(2026, 10, 1)
    assert.isFalse(failedTooLong(since, since))
    assert.isFalse(failedTooLong(since, since + 3 * DAY - 1))
    assert.isTrue(failedTooLong(since, since + 3 * DAY))
    assert.isTrue(failedTooLong(since, since + 10 * DAY))
  })
})
