import { Clock, Duration, Effect } from "effect"

/**
 * How long a test waits for a condition before it gives up: far longer than any condition needs, even on a loaded
 * machine, so that only a condition that never comes fails a test. Waiting is by polling, so a condition that holds
 * early ends the wait early.
 */
export const PATIENCE = Duration.seconds(30)

const POLL_INTERVAL = Duration.millis(20)

/** A pause on the process's own clock, whatever clock the test runs with (a test clock never moves by itself). */
const livePause = Effect.withClock(Effect.sleep(POLL_INTERVAL), Clock.make())

const liveNow = Effect.withClock(Clock.currentTimeMillis, Clock.make())

/**
 * Runs `read` until `done` holds of its result, or `patience` has passed, and returns the last result: the test's
 * own assertions on it then say what was missing. The only place where a test waits by the clock.
 */
export const eventually = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  patience: Duration.DurationInput = PATIENCE
) =>
  Effect.gen(function* () {
    const deadline = (yield* liveNow) + Duration.toMillis(patience)
    let value = yield* read
    while (!done(value) && (yield* liveNow) < deadline) {
      yield* livePause
      value = yield* read
    }
    return value
  })

/** Waits until `condition` holds; the test dies with `what` when it still does not after `PATIENCE`. */
export const waitUntil = <E, R>(what: string, condition: Effect.Effect<boolean, E, R>) =>
  Effect.flatMap(
    eventually(condition, (holds) => holds),
    (holds) => (holds ? Effect.void : Effect.dieMessage(`still waiting after ${Duration.format(PATIENCE)}: ${what}`))
  )
