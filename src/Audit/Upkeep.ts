import { Clock, Effect, Layer } from "effect"
import { AuditLog, type Maintenance, unpartitionedLine } from "./AuditLog.js"

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

/** One round of the call log's upkeep (partitions ahead, retention, a warning for calls in the default partition). */
export const callLogRound = Effect.gen(function* () {
  const audit = yield* AuditLog
  yield* audit.maintain.pipe(Effect.flatMap(logged))
})

/**
 * The call log's upkeep at the start of a running service: a round before it serves (today's and the week ahead's
 * partitions exist before the first call); meanwhile, the rows of a log from before day partitions are moved into
 * their days. The hourly rounds after it are background work (Server/BackgroundWork.ts). A failed round is logged.
 */
export const CallLogUpkeepLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const audit = yield* AuditLog
    const round = callLogRound.pipe(
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
    yield* Effect.forkScoped(convert)
  }).pipe(Effect.withClock(Clock.make()))
)
