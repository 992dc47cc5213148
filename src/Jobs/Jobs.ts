import { SqlClient } from "@effect/sql"
import { Cause, Clock, Context, Duration, Effect, Runtime, Schedule, type Scope } from "effect"
import PgBoss from "pg-boss"
import { JOB_QUEUE_SCHEMA } from "../Sql/JobQueueSchema.js"

/**
 * Background work runs on pg-boss, a PostgreSQL job queue: its jobs live in the service's database (schema
 * `pgboss`), every running instance takes work from it (`FOR UPDATE SKIP LOCKED`, so a job is run by one instance at
 * a time), and a job whose instance died (a `kill -9`) is run again once its expiry has passed. pg-boss speaks to the
 * database through the service's own SQL client, so it runs on PostgreSQL and on the embedded database alike, and a
 * job sent inside a transaction is written by that transaction: it exists exactly when the change that sent it
 * commits.
 */

/** A kind of job: its queue's name, how long one run may take before it counts as abandoned, and its retries. */
export interface JobKind<A> {
  readonly name: string
  /** After this long in one run, the run counts as abandoned (its instance died) and the job runs again. */
  readonly expireInSeconds: number
  /** Runs again after a run that failed or was abandoned, this many times (after `retryDelaySeconds`). */
  readonly retryLimit: number
  readonly retryDelaySeconds: number
  /** Marks `A` as the job's data, for `send` and `work`. */
  readonly _data?: (data: A) => void
}

export const jobKind = <A extends object>(kind: Omit<JobKind<A>, "_data">): JobKind<A> => kind

/**
 * How often an idle worker asks for work. A change that sends jobs wakes this instance's workers once it commits
 * (`wake`), so the wait is for jobs sent by other instances, and for retries that come due. Each poll is a query:
 * 4 delivery workers and the upkeep's at 5 s cost an idle embedded server about 1 s of CPU a minute.
 */
const POLL_SECONDS = 5
/** How often abandoned runs are looked for (pg-boss's maintenance, run by one instance at a time). */
const MAINTENANCE_SECONDS = 30

/** pg-boss's database adapter over the service's SQL client, in the context of `runtime` (a transaction's, say). */
const adapterOf = (sql: SqlClient.SqlClient, runtime: Runtime.Runtime<never>): PgBoss.Db => ({
  executeSql: (text, values) =>
    Runtime.runPromise(runtime)(
      Effect.map(sql.unsafe(text, values ?? []).raw, (result) => {
        // A text of several statements answers one result per statement; pg-boss reads the last.
        const last = Array.isArray(result) ? result[result.length - 1] : result
        return { rows: (last as { readonly rows?: Array<unknown> } | undefined)?.rows ?? [] }
      })
    )
})

/**
 * Whether this process runs background work: `cbs serve` sets it (unless WORKERS=off); a command that only sends
 * jobs (an import, say) leaves it off.
 */
export class RunsWorkers extends Context.Reference<RunsWorkers>()("Jobs/RunsWorkers", {
  defaultValue: () => false
}) {}

export class Jobs extends Effect.Service<Jobs>()("Jobs/Jobs", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runtime = yield* Effect.runtime<never>()
    const working = yield* RunsWorkers
    const boss = new PgBoss({
      db: adapterOf(sql, runtime),
      schema: JOB_QUEUE_SCHEMA,
      // Only instances that run workers look after expiries, retention and schedules.
      supervise: working,
      schedule: working,
      maintenanceIntervalSeconds: MAINTENANCE_SECONDS
    })
    boss.on("error", (error) => Runtime.runFork(runtime)(Effect.logWarning("Job queue", error)))
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => boss.start()),
      () =>
        Effect.promise(() => boss.stop({ graceful: true, close: false, wait: true, timeout: 15_000 })).pipe(
          Effect.ignore
        )
    ).pipe(Effect.orDie)
    /** Each queue's workers on this instance, and which of them are between runs (waiting, or fetching). */
    const pools: Array<{ readonly name: string; readonly ids: Array<string>; readonly idle: Set<string> }> = []

    // The queues this process created: pg-boss drops a job sent to a queue that does not exist, without an error.
    const created = new Set<string>()
    // One creation at a time: creating a queue adds a partition to pg-boss's job table, and two at once can deadlock
    // (another instance starting meanwhile too: then the loser tries again).
    const creating = yield* Effect.makeSemaphore(1)

    /** Creates the queue of `kind` (if the database has none yet); before any job of it is sent, outside a transaction. */
    const queue = <A extends object>(kind: JobKind<A>) =>
      creating.withPermits(1)(
        created.has(kind.name)
          ? Effect.void
          : Effect.tryPromise(() =>
              boss.createQueue(kind.name, {
                name: kind.name,
                expireInSeconds: kind.expireInSeconds,
                retryLimit: kind.retryLimit,
                retryDelay: kind.retryDelaySeconds
              })
            ).pipe(
              Effect.retry({ times: 5, schedule: Schedule.exponential("50 millis") }),
              Effect.tap(() => Effect.sync(() => created.add(kind.name))),
              Effect.orDie
            )
      )

    /**
     * Sends a job; inside a transaction, the transaction writes it (then `wake` once it has committed). `startAfter`
     * delays it.
     */
    const send = <A extends object>(kind: JobKind<A>, data: A, options: { readonly startAfter?: Date } = {}) =>
      sendAll(kind, [data], options)

    /** Sends a job of `kind` for each of `data`, in one statement (see `send`). */
    const sendAll = <A extends object>(
      kind: JobKind<A>,
      data: ReadonlyArray<A>,
      options: { readonly startAfter?: Date } = {}
    ) =>
      Effect.gen(function* () {
        if (!created.has(kind.name)) {
          return yield* Effect.dieMessage(`the job queue ${kind.name} is sent to before it was created (Jobs.queue)`)
        }
        if (data.length === 0) return
        const here = yield* Effect.runtime<never>()
        yield* Effect.tryPromise(() =>
          boss.insert(
            data.map((one) => ({
              name: kind.name,
              data: one,
              ...(options.startAfter === undefined ? {} : { startAfter: options.startAfter })
            })),
            { db: adapterOf(sql, here) }
          )
        )
      }).pipe(Effect.orDie)

    /**
     * The data of the jobs of `kind` that wait for a worker: sent (their start time passed or not) or waiting for a
     * retry, not yet taken (pg-boss's index of waiting jobs answers it).
     */
    const waiting = <A extends object>(kind: JobKind<A>) =>
      sql<{ readonly data: A }>`
        select data from ${sql(JOB_QUEUE_SCHEMA)}.job where name = ${kind.name} and state < 'active'`.pipe(
        Effect.map((rows) => rows.map((row) => row.data)),
        Effect.orDie
      )

    /**
     * Wakes this instance's workers, after a transaction that sent jobs has committed: one idle worker of each queue,
     * which takes a batch (and wakes another when the batch was full); when every worker is running a batch, all of
     * them, so that each asks again as soon as its batch is done.
     */
    const wake = Effect.sync(() => {
      for (const pool of pools) {
        const [idle] = pool.idle
        if (idle !== undefined) boss.notifyWorker(idle)
        else for (const id of pool.ids) boss.notifyWorker(id)
      }
    })

    /**
     * Wakes one of this instance's workers of `kind` once `startAfter` has passed (a job sent to start then), so that
     * the job does not wait for a worker's next poll when the workers are idle: an idle one, or none when every one is
     * running (each asks again as its run ends). None with WORKERS=off.
     */
    const wakeAt = <A extends object>(kind: JobKind<A>, startAfter: Date) =>
      Effect.gen(function* () {
        const pool = pools.find((one) => one.name === kind.name)
        if (pool === undefined) return
        const now = yield* Clock.currentTimeMillis
        // A little after the start time, so that the database (whose clock judges it) sees it passed.
        yield* Effect.sleep(Duration.millis(Math.max(0, startAfter.getTime() - now) + 50))
        const [idle] = pool.idle
        if (idle !== undefined) boss.notifyWorker(idle)
      }).pipe(Effect.withClock(Clock.make()), Effect.forkDaemon, Effect.asVoid)

    /**
     * Runs `handle` for each job of `kind` on `concurrency` workers of this instance (none with WORKERS=off). A
     * handler that fails (or dies) fails the run, which runs again as the kind says; expected outcomes, a webhook
     * that answered 500 say, are the handler's to record and are not failures.
     */
    const work = <A extends object, R>(
      kind: JobKind<A>,
      concurrency: number,
      handle: (data: A) => Effect.Effect<void, never, R>
    ): Effect.Effect<void, never, R | Scope.Scope> =>
      workBatches(kind, { workers: concurrency, batchSize: 1 }, (batch) => Effect.forEach(batch, handle))

    /**
     * Like `work`, but each worker takes up to `batchSize` jobs at once, with one statement, and `handle` gets them
     * together; they are marked done together, with one statement, when it ends (or failed together, when it fails).
     * For short jobs whose fetch and completion would otherwise cost as much as the work.
     */
    const workBatches = <A extends object, R>(
      kind: JobKind<A>,
      options: { readonly workers: number; readonly batchSize: number },
      handle: (data: ReadonlyArray<A>) => Effect.Effect<unknown, never, R>
    ): Effect.Effect<void, never, R | Scope.Scope> =>
      Effect.gen(function* () {
        yield* queue(kind)
        if (!working) return
        const context = yield* Effect.runtime<R>()
        const pool = { name: kind.name, ids: [] as string[], idle: new Set<string>() }
        pools.push(pool)
        for (let i = 0; i < options.workers; i++) {
          // pg-boss waits out the polling interval after every fetch, also one that found jobs: a worker whose batch
          // was full (so more may be waiting) wakes an idle one as it starts and asks again itself as it ends, so that
          // a backlog goes at the workers' pace, not at one batch per worker every POLL_SECONDS. A batch that was not
          // full emptied the queue: the jobs sent since have woken a worker (`wake`).
          let self = ""
          const id = yield* Effect.tryPromise(() =>
            boss.work<A>(
              kind.name,
              { batchSize: options.batchSize, pollingIntervalSeconds: POLL_SECONDS },
              async (batch) => {
                if (batch.length === 0) return
                const full = batch.length === options.batchSize
                pool.idle.delete(self)
                const [other] = pool.idle
                if (full && other !== undefined) boss.notifyWorker(other)
                const exit = await Runtime.runPromiseExit(context)(handle(batch.map((job) => job.data)))
                pool.idle.add(self)
                if (full) boss.notifyWorker(self)
                if (exit._tag === "Failure") throw new Error(Cause.pretty(exit.cause))
              }
            )
          ).pipe(Effect.orDie)
          self = id
          pool.ids.push(id)
          pool.idle.add(id)
        }
        yield* Effect.addFinalizer(() => Effect.promise(() => boss.offWork(kind.name)).pipe(Effect.ignore))
      })

    /** Runs a job of `kind` on the cron schedule `cron` (UTC), on one instance each time. */
    const schedule = <A extends object>(kind: JobKind<A>, cron: string, data: A) =>
      Effect.gen(function* () {
        yield* queue(kind)
        if (working)
          yield* Effect.tryPromise(() => boss.schedule(kind.name, cron, data, { tz: "UTC" })).pipe(Effect.orDie)
      })

    return { queue, send, sendAll, waiting, wake, wakeAt, work, workBatches, schedule }
  })
}) {}
