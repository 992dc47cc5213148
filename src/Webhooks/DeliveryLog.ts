import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import type { AccountId } from "../Domain/Ids.js"
import { type Page, pageMeta } from "../Domain/Pagination.js"
import { TEST_MESSAGE_TYPE, type WebhookDeliveryId, type WebhookEndpointId } from "../Domain/Webhook.js"
import { Jobs } from "../Jobs/Jobs.js"
import { DeliveryJob } from "./DeliveryJob.js"
import { WebhookEndpoints } from "./Endpoints.js"
import { WebhooksRepo } from "./Repo.js"

/** The most pending deliveries the log lists above the attempts. */
const PENDING_SHOWN = 20

const disabled = (what: string) =>
  new ValidationError({ message: `The endpoint is disabled, so nothing can be ${what}: enable it first.` })

/**
 * An endpoint's delivery log (its attempts of the last 30 days, newest first, and the deliveries waiting for an
 * attempt), and the two things a person does from it: resend a delivery, and send a test message. Each is a delivery
 * set pending with its job written in the same transaction, so it is attempted exactly when the change commits.
 */
export class DeliveryLog extends Effect.Service<DeliveryLog>()("Webhooks/DeliveryLog", {
  dependencies: [WebhooksRepo.Default, WebhookEndpoints.Default, Jobs.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const endpoints = yield* WebhookEndpoints
    const jobs = yield* Jobs
    const sql = yield* SqlClient.SqlClient
    // A job is written only to a queue that exists.
    yield* jobs.queue(DeliveryJob)

    /** The endpoint with one page of its attempts and the deliveries still pending; another account's is not found. */
    const read = Effect.fn("DeliveryLog.read")(function* (accountId: AccountId, id: WebhookEndpointId, page: Page) {
      const endpoint = yield* endpoints.find(accountId, id)
      const [total, pending] = yield* Effect.all([
        repo.attemptCount(accountId, id),
        repo.pending(accountId, id, PENDING_SHOWN)
      ])
      const meta = pageMeta(page, total)
      const shown = { ...page, page: Math.min(page.page, meta.last_page) }
      const attempts = yield* repo.attempts(accountId, id, shown.per_page, (shown.page - 1) * shown.per_page)
      return { endpoint, attempts, meta: pageMeta(shown, total), pending }
    })

    /** Commits `queue` (which writes a delivery and its job), then wakes this instance's workers. */
    const queued = <A, E>(queue: Effect.Effect<A, E>) =>
      sql.withTransaction(queue).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.tap(() => jobs.wake)
      )

    /** Sends one of the endpoint's deliveries again (the same message, the same `webhook-id`). */
    const resend = Effect.fn("DeliveryLog.resend")(function* (
      accountId: AccountId,
      id: WebhookEndpointId,
      delivery: WebhookDeliveryId
    ) {
      const endpoint = yield* endpoints.find(accountId, id)
      if (!endpoint.enabled) return yield* disabled("resent")
      return yield* queued(
        Effect.gen(function* () {
          const requeued = yield* repo.requeue(accountId, id, delivery)
          if (Option.isNone(requeued)) {
            return yield* new NotFound({ message: "No delivery with that id to this endpoint." })
          }
          const { attempts } = requeued.value
          yield* jobs.send(DeliveryJob, { delivery: requeued.value.id, attempt: attempts })
          return requeued.value
        })
      )
    })

    /**
     * Sends the endpoint a test message (`webhook.test`, its `data` the endpoint's id): not an event of the account,
     * only a way to see that the receiver answers and checks signatures.
     */
    const sendTest = Effect.fn("DeliveryLog.sendTest")(function* (accountId: AccountId, id: WebhookEndpointId) {
      const endpoint = yield* endpoints.find(accountId, id)
      if (!endpoint.enabled) return yield* disabled("sent")
      const messageId = `msg_test_${randomBytes(12).toString("base64url")}`
      return yield* queued(
        Effect.gen(function* () {
          const created = yield* repo.insertTest(endpoint.id, messageId, TEST_MESSAGE_TYPE)
          yield* jobs.send(DeliveryJob, { delivery: created.id, attempt: created.attempts })
          return { ...created, message_id: messageId }
        })
      )
    })

    return { read, resend, sendTest }
  })
}) {}
