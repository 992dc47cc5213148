import { Chunk, Clock, Context, Duration, Effect, Queue } from "effect"
import { AppConfig } from "../Config.js"
import type { AuditEntry } from "../Domain/CallLog.js"
import { toCalendarDate } from "../Domain/Dates.js"
import { type ActivityQuery, AuditRepo, type Days } from "./Repo.js"

/**
 * How long a read's entry may wait before its batch is written. The contract allows 250 ms; the rest is room for
 * the insert itself.
 */
export const READ_BATCH_DELAY = Duration.millis(200)
/** Entries waiting to be written at most; a request that finds the queue full waits for room (never drops its entry). */
const READ_QUEUE_CAPACITY = 10_000
/** The first pause before a failed batch of reads is tried again; each further failure doubles it. */
const READ_RETRY_PAUSE = Duration.millis(250)
const READ_RETRY_PAUSE_MAX = Duration.seconds(5)
/**
 * Batches in a row that may fail before their rows are given up: with the pauses above, about a minute, long enough
 * for a database restart or a failover.
 */
const READ_RETRY_ATTEMPTS = 16
/** Rows per insert statement: 12 parameters a row stays well under PostgreSQL's 65,535 per statement. */
const ROWS_PER_INSERT = 1_000

const DAY_MS = 86_400_000
/** Days ahead of today that have their partition of the log ready, so that a call never waits for one. */
export const DAYS_AHEAD = 7
/**
 * Days an activity page reads first. Planning a read costs about as much per day partition as the read itself
 * costs in all (a tenth of a millisecond or more each, against a few for the whole page), so a page is first read
 * from the last week's partitions alone, and from all the days kept only when those do not fill it.
 */
const RECENT_DAYS = 7

/** Rows moved from the table of before day partitions per transaction. */
const MOVE_BATCH = 50_000

/** The report of calls that were found in the default partition, for the log and `cbs audit prune`. */
export const unpartitionedLine = (days: Maintenance["unpartitioned"]) => {
  const calls = days.reduce((sum, row) => sum + row.calls, 0)
  return `${calls} call${calls === 1 ? " was" : "s were"} recorded for days that had no partition of the call log (${days
    .map((row) => `${row.day}: ${row.calls}`)
    .join(", ")}); they were in the default partition and now are in their days' partitions.`
}

type ActivityOptions = Omit<ActivityQuery, "days">

/** What a round of maintenance of the log's partitions did. */
export interface Maintenance {
  /** Days whose partition was added. */
  readonly added: ReadonlyArray<string>
  /** Calls found in the default partition (days that had no partition), by day; each day now has its partition. */
  readonly unpartitioned: ReadonlyArray<{ readonly day: string; readonly calls: number }>
  /** Days older than the retention period whose partition was dropped. */
  readonly dropped: ReadonlyArray<string>
  /** Calls older than the retention period deleted from the default partition. */
  readonly deleted: number
  /** The first day kept. */
  readonly firstKept: string
}

/** A timer on the process's own clock, whatever clock the caller's requests are timed with. */
const liveSleep = (duration: Duration.Duration) => Effect.withClock(Effect.sleep(duration), Clock.make())

/**
 * The clock that times read batches: the process's own, not the clock requests are timed with, so that a batch is
 * written on time however that clock is set. A test of the batching gives it a clock it moves itself.
 */
export class ReadBatchClock extends Context.Reference<ReadBatchClock>()("Audit/ReadBatchClock", {
  defaultValue: (): Clock.Clock => Clock.make()
}) {}

/** The call log: every API and MCP call, with who made it, what it touched and how it ended. */
export class AuditLog extends Effect.Service<AuditLog>()("Audit/AuditLog", {
  dependencies: [AuditRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* AuditRepo
    const config = yield* AppConfig
    const batchClock = yield* ReadBatchClock

    /**
     * Records a change's call in the transaction the change runs in: the row commits with the change or not at all,
     * so a failure here fails the change.
     */
    const recordInTransaction = (entry: AuditEntry) => repo.insert(entry).pipe(Effect.orDie)

    // Reads handed over, and reads whose batch has been written (or given up, loudly), since the start.
    let handedOver = 0
    let settled = 0

    /** Writes `entries` in statements of ROWS_PER_INSERT rows; the rows of the statements that failed. */
    const tryWrite = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.reduce(
        Chunk.chunksOf(Chunk.unsafeFromArray(entries), ROWS_PER_INSERT),
        [] as ReadonlyArray<AuditEntry>,
        (failed, rows) =>
          repo.insertAll(Chunk.toReadonlyArray(rows)).pipe(
            Effect.as(failed),
            Effect.catchAllCause(() => Effect.succeed([...failed, ...Chunk.toReadonlyArray(rows)]))
          )
      )

    /** Rows that could not be written are given up only after this, loudly: they name calls that were answered. */
    const giveUp = (entries: ReadonlyArray<AuditEntry>) =>
      entries.length === 0
        ? Effect.void
        : Effect.logError(`Audit log write failed; ${entries.length} call(s) were not recorded`).pipe(
            Effect.annotateLogs({ audit_entries: JSON.stringify(entries) })
          )

    // Reads are written in batches: the first entry to arrive starts a batch, and everything queued by
    // READ_BATCH_DELAY later goes in with it, in one statement. The rows of a batch that fails (the database
    // restarting, a connection dropped) go again with the next one, after a pause that doubles up to
    // READ_RETRY_PAUSE_MAX, until READ_RETRY_ATTEMPTS batches in a row have failed; only then are they given up.
    // A batch that has begun is always written, even when the service stops meanwhile; what is still queued (or
    // waiting to be retried) then is tried once more by the finalizer, after the server has answered its last
    // request (the server is closed before the services it uses).
    const reads = yield* Queue.bounded<AuditEntry>(READ_QUEUE_CAPACITY)
    let retrying: ReadonlyArray<AuditEntry> = []
    let failures = 0
    const settle = (count: number) =>
      Effect.sync(() => {
        settled += count
      })
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const rest = [...retrying, ...Chunk.toReadonlyArray(yield* Queue.takeAll(reads))]
        retrying = []
        yield* giveUp(yield* tryWrite(rest))
        yield* settle(rest.length)
      })
    )
    const nextBatch = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const first = retrying.length === 0 ? [yield* restore(Queue.take(reads))] : []
        const pause =
          failures === 0
            ? READ_BATCH_DELAY
            : Duration.min(Duration.times(READ_RETRY_PAUSE, 2 ** (failures - 1)), READ_RETRY_PAUSE_MAX)
        yield* Effect.exit(restore(Effect.withClock(Effect.sleep(pause), batchClock)))
        const batch = [...retrying, ...first, ...Chunk.toReadonlyArray(yield* Queue.takeAll(reads))]
        retrying = []
        const failed = yield* tryWrite(batch)
        if (failed.length === 0) {
          failures = 0
        } else if (++failures < READ_RETRY_ATTEMPTS) {
          retrying = failed
          yield* Effect.logWarning(
            `Audit log write failed; ${failed.length} call(s) will be written with the next batch (attempt ${failures} of ${READ_RETRY_ATTEMPTS})`
          )
        } else {
          failures = 0
          yield* giveUp(failed)
        }
        yield* settle(batch.length - retrying.length)
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

    /**
     * Records one call now. Should the write fail, the call joins the batches of reads, which try again: a failure
     * to record never turns an answered request into an error, nor loses its row while the database comes back.
     */
    const record = (entry: AuditEntry) => repo.insert(entry).pipe(Effect.catchAllCause(() => recordRead(entry)))

    /** Waits until the batches holding every read handed over so far have been written. */
    const readsWritten = Effect.suspend(() => {
      const target = handedOver
      const check: Effect.Effect<void> = Effect.suspend(() =>
        settled >= target ? Effect.void : Effect.zipRight(liveSleep(Duration.millis(5)), check)
      )
      return check
    })

    /**
     * The days the log keeps at `now`: today and the AUDIT_RETENTION_DAYS days before it, whole UTC days (a day goes
     * when all of it is older than the retention period). Every read of the log is bounded to them.
     */
    const daysKept = (now: number): Days => ({
      from: toCalendarDate(new Date(now - config.auditRetentionDays * DAY_MS)),
      to: toCalendarDate(new Date(now))
    })

    /**
     * An activity page, read from the last RECENT_DAYS days' partitions when they fill it, else from all the days
     * kept. The recent read is the page exactly when it is full and its oldest row lies within those days (a change,
     * which is not bounded by days, may be older: then a call of an earlier day might belong before it).
     */
    const activityPage = <A extends { readonly at: string }>(
      options: ActivityOptions,
      read: (query: ActivityQuery) => Effect.Effect<ReadonlyArray<A>>
    ) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const kept = daysKept(now)
        const recent = toCalendarDate(new Date(now - (RECENT_DAYS - 1) * DAY_MS))
        if (recent > kept.from) {
          const rows = yield* read({ ...options, days: { from: recent, to: kept.to } })
          const oldest = rows.at(-1)
          if (rows.length === options.limit && oldest !== undefined && oldest.at >= `${recent}T00:00:00Z`) return rows
        }
        return yield* read({ ...options, days: kept })
      })

    /**
     * One round of upkeep of the log's day partitions at the clock's now: adds yesterday's to a week ahead's,
     * gives the days of any rows in the default partition their partition (moving the rows there; the caller
     * reports them: they mean calls were made for a day without one), and drops the partitions of the days before
     * the retention period (and deletes such rows from the default partition).
     */
    const maintain = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const kept = daysKept(now)
      const unpartitioned = yield* repo.defaultDays
      const wanted = [
        ...Array.from({ length: DAYS_AHEAD + 2 }, (_, i) => toCalendarDate(new Date(now + (i - 1) * DAY_MS))),
        ...unpartitioned.map((row) => row.day).filter((day) => day >= kept.from)
      ]
      const existing = new Set(yield* repo.days)
      const added: Array<string> = []
      for (const day of [...new Set(wanted)].sort()) {
        if (existing.has(day)) continue
        yield* repo.addDay(day)
        added.push(day)
      }
      const dropped = yield* repo.dropDaysBefore(kept.from)
      const deleted = yield* repo.deleteBefore(kept.from)
      return { added, unpartitioned, dropped, deleted, firstKept: kept.from } satisfies Maintenance
    })

    /**
     * Moves the rows of the table from before day partitions (migrations/0011_audit_log_by_day.sql) into their
     * days, newest day first, `MOVE_BATCH` rows a transaction, and drops that table once it is empty. Writers are
     * never held up: new calls already go to the partitioned log. Returns how many rows moved.
     */
    const convert = (progress: (moved: number) => Effect.Effect<void> = () => Effect.void) =>
      Effect.gen(function* () {
        if (!(yield* repo.unpartitionedPresent)) return 0
        let moved = 0
        const existing = new Set(yield* repo.days)
        for (;;) {
          const day = yield* repo.unpartitionedNewestDay
          if (day === null) break
          if (!existing.has(day)) {
            yield* repo.addDay(day)
            existing.add(day)
          }
          const n = yield* repo.moveUnpartitioned(day, MOVE_BATCH)
          moved += n
          yield* progress(moved)
        }
        yield* repo.dropUnpartitioned
        return moved
      })

    return {
      record,
      recordInTransaction,
      recordRead,
      readsWritten,
      maintain,
      convert,
      daysKept: Effect.map(Clock.currentTimeMillis, daysKept),
      /** An article's calls within the days kept and its changes, newest first. */
      activityOfArticle: (articleId: number, options: ActivityOptions) =>
        activityPage(options, (query) => repo.activityOfArticle(articleId, query)),
      /** An account's calls within the days kept and its changes, newest first. */
      activityOfAccount: (accountId: number, options: ActivityOptions) =>
        activityPage(options, (query) => repo.activityOfAccount(accountId, query)),
      /** The call that saved an article's revision (an API or MCP change), if the log still has it. */
      callThatSaved: (articleId: number, revision: number) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => repo.callThatSaved(articleId, revision, daysKept(now))),
      retentionDays: config.auditRetentionDays
    }
  })
}) {}
