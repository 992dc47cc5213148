import { SqlClient } from "@effect/sql"
import { Clock, Effect, Either, Option } from "effect"
import { Webhook } from "standardwebhooks"
import { failedTooLong, nextAttemptAt } from "../Domain/WebhookSchedule.js"
import { guardedPost } from "../Http/OutboundFetch.js"
import { Jobs } from "../Jobs/Jobs.js"
import { DeliveriesRepo, type PendingDelivery } from "./DeliveriesRepo.js"
import { type DeliveryAttempt, DeliveryJob } from "./DeliveryJob.js"

/** A delivery's request: 10 s in all; of the answer, the first 1 KiB is read and kept, the rest never read. */
const TIMEOUT_MS = 10_000
const KEPT_BYTES = 1024

/** How many deliveries one instance makes at once: a slow receiver holds one of them, never the others. */
export const DELIVERY_WORKERS = 4

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

    const attempt = Effect.fn("Webhooks.deliver")(function* (job: DeliveryAttempt) {
      const found = yield* repo.load(job.delivery)
      if (Option.isNone(found)) return
      const delivery = found.value
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
      yield* Effect.gen(function* () {
        const recorded = yield* repo.record({
          delivery: delivery.id,
          endpoint: delivery.endpoint_id,
          attempt: job.attempt,
          attemptedAt: at,
          status,
          durationMs: now - startedAt,
          response: Either.isRight(answer) ? answer.right.body : null,
          error: outcome.error,
          succeeded: outcome.succeeded,
          nextAt: nextAt === undefined ? undefined : new Date(nextAt),
          disable
        })
        if (recorded && nextAt !== undefined) {
          yield* jobs.send(DeliveryJob, { delivery: delivery.id, attempt: attempts }, { startAfter: new Date(nextAt) })
        }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    return { attempt }
  })
}) {}
