import { Effect } from "effect"
import type { Credential } from "../Domain/Credential.js"
import { ValidationError } from "../Domain/Errors.js"
import { EVENT_DAYS, type Event, type EventType } from "../Domain/Event.js"
import type { EventsQuery } from "../Domain/Queries.js"
import { Jobs } from "../Jobs/Jobs.js"
import { DeliveryJob } from "../Webhooks/DeliveryJob.js"
import type { EventRows } from "./EventRows.js"
import { EventsRepo } from "./Repo.js"

/**
 * What happened in an account. A change records its events in its own transaction, as its last step (`record`): a
 * change that commits has its events, one that rolls back has none; each event is handed to the webhook endpoints
 * that want it, by delivery jobs written in the same transaction.
 */
export class Events extends Effect.Service<Events>()("Events/Events", {
  dependencies: [EventsRepo.Default, Jobs.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EventsRepo
    const jobs = yield* Jobs
    // The delivery queue exists before any job is sent to it: the queue drops a job sent to a queue it does not know,
    // and a process that runs no workers (WORKERS=off, `cbs import`) may be the first to send one.
    yield* jobs.queue(DeliveryJob)

    /** Records an event of `type` for each row `rows` selects; inside the caller's transaction, last. */
    const record = Effect.fn("Events.record")(function* (type: EventType, rows: EventRows) {
      const deliveries = yield* repo.insert(type, rows)
      yield* jobs.sendAll(
        DeliveryJob,
        deliveries.map((delivery) => ({ delivery, attempt: 0 }))
      )
    })

    /** The feed: the account's events after `after`, oldest first, with the cursor for the next call. */
    const list = Effect.fn("Events.list")(function* (credential: Credential, query: EventsQuery) {
      const after = query.after
      if (after !== undefined && !(yield* repo.exists(credential.accountId, after))) {
        return yield* new ValidationError({
          message: `after: evt_${after} is not an event of this account from the last ${EVENT_DAYS} days; start without after, or pass the next_after of the last answer.`
        })
      }
      const data: ReadonlyArray<Event> = yield* repo.list(credential.accountId, {
        after,
        types: query.types,
        site_id: query.site_id,
        limit: query.per_page
      })
      const last = data[data.length - 1]
      return { data, next_after: last?.id ?? after ?? null }
    })

    return {
      record,
      list,
      prune: repo.prune,
      /** Wakes this instance's delivery workers: after a transaction that recorded events has committed. */
      wake: jobs.wake
    }
  })
}) {}
