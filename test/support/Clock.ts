import { Duration, Effect, TestClock } from "effect"

/**
 * The start of each test of a file whose server runs on the test clock (under `layer(...)`), which starts at the
 * epoch and stands still. Each test starts at the real time, and at least `gap` after the previous test's start, so
 * that no two tests share a window of a limit counted by the clock (a minute for the request limit; longer where a
 * test's refusals hold slots, as sign-in's do). One per test file: `const startClock = clockStarts(Duration.minutes(1))`.
 */
export const clockStarts = (gap: Duration.DurationInput) => {
  const step = Duration.toMillis(gap)
  let lastStart = 0
  return Effect.suspend(() => {
    lastStart = Math.max(Date.now(), lastStart + step)
    return TestClock.setTime(lastStart)
  })
}

/** Sets the test clock to the instant `iso` names: that instant, in milliseconds. */
export const setNow = (iso: string) => {
  const time = Date.parse(iso)
  return Effect.as(TestClock.setTime(time), time)
}
