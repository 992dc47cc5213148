import { SqlClient } from "@effect/sql"
import { Clock, Deferred, Effect, Either, Exit } from "effect"
import { Webhook } from "standardwebhooks"
import { failedTooLong, nextAttemptAt } from "../Domain/WebhookSchedule.js"
import { guardedPost } from "../Http/OutboundFetch.js"
import { Jobs } from "../Jobs/Jobs.js"
import { type AttemptRecord, DeliveriesRepo, type PendingDelivery } from "./DeliveriesRepo.js"
import { type DeliveryAttempt, DeliveryJob } from "./DeliveryJob.js"

/** A delivery's request: 10 s in all; of the answer, the first 1 KiB is read and kept, the rest never read. */
const TIMEOUT_MS = 10_000
const KEPT_BYTES = 1024

/**
 * An instance's delivery workers, each taking up to DELIVERY_BATCH deliveries from the queue at once (one statement
 * to fetch them, one to read them, one to mark their jobs done) and making them at once: a slow receiver holds its
 * worker until it answers (10 s at most), never the other workers, nor the other deliveries of its batch.
 */
export const DELIVERY_WORKERS = 4
export const DELIVERY_BATCH = 5

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,<base64 HMAC-SHA256>` with the endpoint's secret, and
 * during a rotation's overlap a second signature with the previous secret, space-separated, so that a receiver
 * holding either verifies it.
 */
const signatures = (delivery: PendingDelivery, body: string, at: Date) => {
  const secrets = [
    delivery.secret,
    ...(delivery.previous_secret !== null &&
    delivery.previous_secret_until !== null &&
    delivery.previous_secret_until.getTime() > at.getTime()
      ? [delivery.previous_secret]
      : [])
  ]
  return secrets.map((secret) => new Webhook(secret).sign(delivery.message_id, at, body)).join(" ")
}

/** What an answer (or its absence) means for the delivery: success, a failure in words, or a 410 that disables. */
const judged = (status: number | null, error: string | null) => {
  if (status === null) return { succeeded: false, gone: false, error }
  if (status >= 200 && status < 300) return { succeeded: true, gone: false, error: null }
  if (status === 410) return { succeeded: false, gone: true, error: null }
  if (status >= 300 && status < 400) return { succeeded: false, gone: false, error: "redirects are not followed" }
  return { succeeded: false, gone: false, error: null }
}

/**
 * Makes one attempt of a delivery: signs and POSTs it through the outbound guard, then records the attempt, the
 * delivery's state and the endpoint's, and the next attempt's job, in one transaction. A job whose attempt is already
 * recorded (it ran again after its instance died), or whose delivery is done or endpoint disabled, does nothing.
 */
export class Deliver extends Effect.Service<Deliver>()("Webhooks/Deliver", {
  dependencies: [DeliveriesRepo.Default, Jobs.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DeliveriesRepo
    const jobs = yield* Jobs
    yield* jobs.queue(DeliveryJob)

    /** One attempt of `delivery` (as loaded) for `job`, unless it was made already, or is no longer wanted. */
    const attemptLoaded = Effect.fn("Webhooks.deliver")(function* (
      job: DeliveryAttempt,
      delivery: PendingDelivery,
      recordSucceeded: (attempt: AttemptRecord) => Effect.Effect<boolean>
    ) {
      if (delivery.state !== "pending" || delivery.attempts !== job.attempt || !delivery.enabled) return
      const startedAt = yield* Clock.currentTimeMillis
      const at = new Date(startedAt)
      const body = JSON.stringify(delivery.payload)
      const answer = yield* Effect.either(
        guardedPost(
          delivery.url,
          body,
          {
            "webhook-id": delivery.message_id,
            "webhook-timestamp": String(Math.floor(startedAt / 1000)),
            "webhook-signature": signatures(delivery, body, at)
          },
          { maxBytes: KEPT_BYTES, timeoutMs: TIMEOUT_MS }
        )
      )
      const now = yield* Clock.currentTimeMillis
      const status = Either.isRight(answer) ? answer.right.status : null
      const outcome = judged(status, Either.isLeft(answer) ? answer.left.message : null)
      const attempts = job.attempt + 1
      const failingSince = delivery.failing_since?.getTime() ?? startedAt
      const disable = outcome.gone
        ? "the endpoint answered 410 Gone"
        : !outcome.succeeded && failedTooLong(failingSince, now)
          ? "every delivery failed for 3 days"
          : undefined
      // An attempt that disables its endpoint ends the delivery: failed, with no attempt to come.
      const nextAt =
        outcome.succeeded || disable !== undefined
          ? undefined
          : nextAttemptAt(delivery.created_at.getTime(), attempts, now)
      const attempt: AttemptRecord = {
        delivery: delivery.id,
        attempt: job.attempt,
        attemptedAt: at,
        status,
        durationMs: now - startedAt,
        response: Either.isRight(answer) ? answer.right.body : null,
        error: outcome.error,
        succeeded: outcome.succeeded,
        nextAt: nextAt === undefined ? undefined : new Date(nextAt),
        disable
      }
      // A record is one statement, successes several together; an attempt with another to come records it and sends
      // its job in one transaction.
      if (outcome.succeeded) return yield* recordSucceeded(attempt)
      if (nextAt === undefined) return yield* repo.record(attempt)
      yield* Effect.gen(function* () {
        if (yield* repo.record(attempt)) {
          yield* jobs.send(DeliveryJob, { delivery: delivery.id, attempt: attempts }, { startAfter: new Date(nextAt) })
        }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    /**
     * Records successful attempts together: those answered while a record is being written go in the next one, so a
     * batch whose receivers answer at once costs one or two statements, and a slow receiver delays no other record.
     * Each gets whether its attempt was recorded (not by another run first).
     */
    const successRecords = Effect.gen(function* () {
      const writing = yield* Effect.makeSemaphore(1)
      const waiting: Array<{ readonly attempt: AttemptRecord; readonly done: Deferred.Deferred<boolean> }> = []
      const write = writing.withPermits(1)(
        Effect.suspend(() => {
          const taken = waiting.splice(0)
          if (taken.length === 0) return Effect.void
          return Effect.exit(repo.recordSucceeded(taken.map((one) => one.attempt))).pipe(
            Effect.flatMap((exit) =>
              Effect.forEach(
                taken,
                (one) =>
                  Deferred.done(
                    one.done,
                    Exit.map(exit, (recorded) => recorded.has(one.attempt.delivery))
                  ),
                { discard: true }
              )
            )
          )
        })
      )
      return (attempt: AttemptRecord) =>
        Effect.gen(function* () {
          const done = yield* Deferred.make<boolean>()
          waiting.push({ attempt, done })
          yield* write
          return yield* Deferred.await(done)
        })
    })

    /**
     * The attempts of `batch`, taken from the queue together: their deliveries read in one statement, their requests
     * made at once (a slow receiver delays none of the others), each recorded as soon as it is answered.
     */
    const attemptAll = (batch: ReadonlyArray<DeliveryAttempt>) =>
      Effect.gen(function* () {
        const loaded = new Map((yield* repo.loadAll(batch.map((job) => job.delivery))).map((d) => [d.id, d]))
        const recordSucceeded = yield* successRecords
        yield* Effect.forEach(
          batch,
          (job) => {
            const delivery = loaded.get(job.delivery)
            return delivery === undefined ? Effect.void : attemptLoaded(job, delivery, recordSucceeded)
          },
          { concurrency: "unbounded", discard: true }
        )
      })

    /** One attempt of a delivery (see `attemptAll`). */
    const attempt = (job: DeliveryAttempt) => attemptAll([job])

    return { attempt, attemptAll }
  })
}) {}
