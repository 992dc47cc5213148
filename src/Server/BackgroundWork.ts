import { Clock, Effect, Layer } from "effect"
import { AuditLog } from "../Audit/AuditLog.js"
import { callLogRound } from "../Audit/Upkeep.js"
import { Events } from "../Events/Events.js"
import { Jobs, jobKind } from "../Jobs/Jobs.js"
import { CHECK_DAYS, Checker } from "../LinkChecks/Checker.js"
import { linkCheckWork } from "../LinkChecks/Work.js"
import { DELIVERY_BATCH, DELIVERY_WORKERS, Deliver } from "../Webhooks/Deliver.js"
import { DeliveriesRepo } from "../Webhooks/DeliveriesRepo.js"
import { DeliveryJob } from "../Webhooks/DeliveryJob.js"

/**
 * The hourly upkeep: the call log's partitions and retention, events and webhook deliveries past their 30 days, link
 * checks past their 90.
 */
const UpkeepJob = jobKind<{ readonly hourly: true }>({
  name: "upkeep",
  expireInSeconds: 15 * 60,
  retryLimit: 1,
  retryDelaySeconds: 60
})

const upkeep = Effect.gen(function* () {
  const events = yield* Events
  const deliveries = yield* DeliveriesRepo
  const checker = yield* Checker
  yield* callLogRound
  const pruned = yield* events.prune
  const attempts = yield* deliveries.prune
  const checks = yield* checker.prune(yield* Clock.currentTimeMillis, CHECK_DAYS)
  if (pruned > 0 || attempts > 0) {
    yield* Effect.logInfo(`Upkeep: deleted ${pruned} event(s) and ${attempts} webhook attempt(s) older than 30 days`)
  }
  if (checks > 0) yield* Effect.logInfo(`Upkeep: deleted ${checks} link check(s) older than ${CHECK_DAYS} days`)
}).pipe(
  Effect.withClock(Clock.make()),
  Effect.catchAllCause((cause) => Effect.logError("Upkeep failed; it runs again within the hour", cause))
)

/**
 * The background work of an instance, on the job queue (Jobs): webhook deliveries, on DELIVERY_WORKERS workers taking up
 * to DELIVERY_BATCH at a time, the link checks (LinkChecks/Work.ts), and the hourly upkeep, run by one instance each
 * hour. With WORKERS=off (or in a command) the queues exist and jobs are sent, but this instance runs none.
 */
export const BackgroundWorkLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const deliver = yield* Deliver
    yield* jobs.workBatches(DeliveryJob, { workers: DELIVERY_WORKERS, batchSize: DELIVERY_BATCH }, deliver.attemptAll)
    yield* jobs.work(UpkeepJob, 1, () => upkeep)
    yield* jobs.schedule(UpkeepJob, "7 * * * *", { hourly: true })
    yield* linkCheckWork
  })
).pipe(
  Layer.provide([
    Deliver.Default,
    Jobs.Default,
    Events.Default,
    DeliveriesRepo.Default,
    AuditLog.Default,
    Checker.Default
  ])
)
