import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { AuditLog, type Maintenance, unpartitionedLine } from "./AuditLog.js"

/** How often a running service looks after the call log's partitions. */
const EVERY = Duration.hours(1)

/** The report of one round, in the service's log: a warning when calls had landed in the default partition. */
const logged = (done: Maintenance) =>
  Effect.gen(function* () {
    if (done.unpartitioned.length > 0) yield* Effect.logWarning(unpartitionedLine(done.unpartitioned))
    if (done.added.length > 0 || done.dropped.length > 0 || done.deleted > 0) {
      yield* Effect.logInfo(
        `Call log: added the partitions of ${done.added.join(", ") || "no day"}; dropped those of ${
          done.dropped.join(", ") || "no day"
        } (calls are kept from ${done.firstKept}); deleted ${done.deleted} older call(s) from the default partition`
      )
    }
  })

/**
 * The running service's upkeep of the call log, on the process's own clock: once before it serves (today's and the
 * week ahead's partitions exist before the first call), then every hour (the partitions ahead, a warning for calls
 * found in the default partition, retention by dropping whole days). Meanwhile, the rows of a log from before day
 * partitions are moved into their days. A failed round is logged and tried again at the next.
 */
export const CallLogUpkeepLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const audit = yield* AuditLog
    const round = audit.maintain.pipe(
      Effect.flatMap(logged),
      Effect.catchAllCause((cause) => Effect.logError("Call log upkeep failed; it runs again within the hour", cause))
    )
    const convert = audit.convert().pipe(
      Effect.tap((moved) =>
        moved > 0
          ? Effect.logInfo(`Call log: moved ${moved} call(s) from before day partitions into their days`)
          : Effect.void
      ),
      Effect.catchAllCause((cause) =>
        Effect.logError("Moving the call log into day partitions failed; it resumes at the next start", cause)
      )
    )
    yield* round
    yield* Effect.forkScoped(Effect.zipRight(convert, Effect.repeat(Effect.delay(round, EVERY), Schedule.forever)))
  }).pipe(Effect.withClock(Clock.make()))
)
