import { Clock, Duration, Effect } from "effect"
import { AuditLog } from "../../src/Audit.js"

/** A wait on the process's own clock, whatever clock the test runs with. */
const liveSleep = (duration: Duration.DurationInput) => Effect.withClock(Effect.sleep(duration), Clock.make())

/**
 * Waits until every read call answered so far by the test's server has had its call-log row written: reads' rows
 * are written in batches, up to READ_BATCH_DELAY (plus the insert) after their answer. For tests that look for a
 * row's absence, or at the order of reads' and changes' rows.
 */
export const readRowsWritten = Effect.flatMap(AuditLog, (log) => log.readsWritten)

/**
 * Runs `read` until `done` holds of its result, or five seconds have passed; the last result. For tests that look
 * for rows a read call's batch writes.
 */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, done: (value: A) => boolean) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 5_000
    let value = yield* read
    while (!done(value) && Date.now() < deadline) {
      yield* liveSleep(Duration.millis(20))
      value = yield* read
    }
    return value
  })
