import { Chunk, Clock, Duration, Effect, Queue } from "effect"
import { AuditRepo } from "./Audit/Repo.js"
import { AppConfig } from "./Config.js"
import type { AuditEntry } from "./Domain/CallLog.js"

/**
 * How long a read's entry may wait before its batch is written. The contract allows 250 ms; the rest is room for
 * the insert itself.
 */
export const READ_BATCH_DELAY = Duration.millis(200)
/** Entries waiting to be written at most; a request that finds the queue full waits for room (never drops its entry). */
const READ_QUEUE_CAPACITY = 10_000
/** Rows per insert statement: 12 parameters a row stays well under PostgreSQL's 65,535 per statement. */
const ROWS_PER_INSERT = 1_000

/** A timer on the process's own clock, whatever clock the caller's requests are timed with. */
const liveSleep = (duration: Duration.Duration) => Effect.withClock(Effect.sleep(duration), Clock.make())

/** The call log: every API and MCP call, with who made it, what it touched and how it ended. */
export class AuditLog extends Effect.Service<AuditLog>()("AuditLog", {
  dependencies: [AuditRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* AuditRepo
    const config = yield* AppConfig

    /** A failure to record is logged loudly and swallowed: it must never turn an answered request into an error. */
    const orLogged = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.catchAllCause((cause) =>
        Effect.logError(`Audit log write failed; ${entries.length} call(s) were not recorded`, cause).pipe(
          Effect.annotateLogs({ audit_entries: JSON.stringify(entries) })
        )
      )

    /** Records one call now. */
    const record = (entry: AuditEntry) => repo.insert(entry).pipe(orLogged([entry]))

    // Reads handed over, and reads whose batch has been written (or has failed, loudly), since the start.
    let handedOver = 0
    let settled = 0

    const writeBatch = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.forEach(
        Chunk.chunksOf(Chunk.unsafeFromArray(entries), ROWS_PER_INSERT),
        (rows) => repo.insertAll(Chunk.toReadonlyArray(rows)).pipe(orLogged(Chunk.toReadonlyArray(rows))),
        { discard: true }
      ).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            settled += entries.length
          })
        )
      )

    // Reads are written in batches: the first entry to arrive starts a batch, and everything queued by
    // READ_BATCH_DELAY later goes in with it, in one statement. A batch that has begun is always written, even when
    // the service stops meanwhile; what is still queued then is written by the finalizer, after the server has
    // answered its last request (the server is closed before the services it uses).
    const reads = yield* Queue.bounded<AuditEntry>(READ_QUEUE_CAPACITY)
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.takeAll(reads), (rest) => writeBatch(Chunk.toArray(rest))))
    const nextBatch = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const first = yield* restore(Queue.take(reads))
        yield* Effect.exit(restore(liveSleep(READ_BATCH_DELAY)))
        const rest = yield* Queue.takeAll(reads)
        yield* writeBatch([first, ...rest])
      })
    )
    yield* Effect.forkScoped(Effect.forever(nextBatch))

    /**
     * Records a read call within READ_BATCH_DELAY (plus the insert), batched with the others (the contract allows
     * reads' rows to be at most 250 ms late). A change's row is written in the change's transaction instead.
     */
    const recordRead = (entry: AuditEntry) =>
      Effect.suspend(() => {
        handedOver++
        return Queue.offer(reads, entry)
      }).pipe(Effect.asVoid)

    /** Waits until the batches holding every read handed over so far have been written. */
    const readsWritten = Effect.suspend(() => {
      const target = handedOver
      const check: Effect.Effect<void> = Effect.suspend(() =>
        settled >= target ? Effect.void : Effect.zipRight(liveSleep(Duration.millis(5)), check)
      )
      return check
    })

    /** Deletes calls older than the retention period; returns how many. */
    const prune = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const before = new Date(now - config.auditRetentionDays * 86_400_000).toISOString()
      return yield* repo.pruneBefore(before)
    })

    return {
      record,
      recordRead,
      readsWritten,
      prune,
      activityOfArticle: repo.activityOfArticle,
      activityOfAccount: repo.activityOfAccount,
      retentionDays: config.auditRetentionDays
    }
  })
}) {}
