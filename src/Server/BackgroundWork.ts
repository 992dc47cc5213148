import { Clock, Effect, Layer } from "effect"
import { AuditLog } from "../Audit/AuditLog.js"
import { callLogRound } from "../Audit/Upkeep.js"
import { Events } from "../Events/Events.js"
import { Jobs, jobKind } from "../Jobs/Jobs.js"
import { DELIVERY_WORKERS, Deliver } from "../Webhooks/Deliver.js"
import { DeliveriesRepo } from "../Webhooks/DeliveriesRepo.js"
import { DeliveryJob } from "../Webhooks/DeliveryJob.js"

/** The hourly upkeep: the call log's partitions and retention, events and webhook deliveries past their 30 days. */
const UpkeepJob = jobKind<{ readonly hourly: true }>({
  name: "upkeep",
  expireInSeconds: 15 * 60,
  retryLimit: 1,
  retryDelaySeconds: 60
})

const upkeep = Effect.gen(function* () {
  const events = yield* Events
  const deliveries = yield* DeliveriesRepo
  yield* callLogRound
  const pruned = yield* events.prune
  const attempts = yield* deliveries.prune
  if (pruned > 0 || attempts > 0) {
    yield* Effect.logInfo(`Upkeep: deleted ${pruned} event(s) and ${attempts} webhook attempt(s) older than 30 days`)
  }
}).pipe(
  Effect.withClock(Clock.make()),
  Effect.catchAllCause((cause) => Effect.logError("Upkeep failed; it runs again within the hour", cause))
)

/**
 * The background work of an instance, on the job queue (Jobs): webhook deliveries, DELIVERY_WORKERS at a time, and the
 * hourly upkeep, run by one instance each hour. With WORKERS=off (or in a command) the queues exist and jobs are
 * sent, but this instance runs none.
 */
export const BackgroundWorkLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const deliver = yield* Deliver
    yield* jobs.work(DeliveryJob, DELIVERY_WORKERS, deliver.attempt)
    yield* jobs.work(UpkeepJob, 1, () => upkeep)
    yield* jobs.schedule(UpkeepJob, "7 * * * *", { hourly: true })
  })
).pipe(Layer.provide([Deliver.Default, Jobs.Default, Events.Default, DeliveriesRepo.Default, AuditLog.Default]))
