import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { EVENT_DAYS, Event, type EventType } from "../Domain/Event.js"
import type { AccountId, SiteId } from "../Domain/Ids.js"
import { rfc3339 } from "../Sql/SqlFormats.js"
import type { EventRows } from "./EventRows.js"

export interface EventFilter {
  readonly after?: number | undefined
  readonly types?: ReadonlyArray<EventType> | undefined
  readonly site_id?: SiteId | undefined
  readonly limit: number
}

// An event as the interface writes it, built by the database from a row of `events` (`e`).
const asMessage = `jsonb_build_object('id', 'evt_' || e.id, 'type', e.type, 'created_at', ${rfc3339("e.created_at")}, 'data', e.data)`

export class EventsRepo extends Effect.Service<EventsRepo>()("Events/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Writes the events `rows` selects, and a delivery of each to every enabled webhook endpoint of its account that
     * wants its type; the ids of the deliveries. Within an account, events are numbered under the account's lock,
     * held until the transaction ends: so ids commit in increasing order. Run last in a transaction (after every row
     * lock it takes), so that a transaction holding an account's lock never waits for another lock.
     */
    const insert = (type: EventType, rows: EventRows) =>
      Effect.gen(function* () {
        yield* sql`select pg_advisory_xact_lock(hashtextextended('events ' || account_id, 0))
          from (select distinct account_id from (${rows}) r order by account_id) a`
        const deliveries = yield* sql<{ readonly id: number }>`
          with e as (
            insert into events (account_id, site_id, type, data)
            select r.account_id, r.site_id, ${type}, r.data from (${rows}) r
            returning id, account_id, type, data, created_at
          )
          insert into webhook_deliveries (endpoint_id, event_id, message_id, payload)
          select w.id, e.id, 'evt_' || e.id, ${sql.unsafe(asMessage)}
          from e join webhook_endpoints w on w.account_id = e.account_id and w.enabled and e.type = any(w.events)
          order by e.id, w.id
          returning id`
        return deliveries.map((row) => row.id)
      }).pipe(Effect.orDie)

    const decodeEvents = Schema.decodeUnknown(Schema.Array(Event))

    /** The account's events after `after`, oldest first, at most `limit`, of the last EVENT_DAYS days. */
    const list = (accountId: AccountId, filter: EventFilter) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ readonly message: unknown }>`
          select ${sql.unsafe(asMessage)} as message from events e
          where ${sql.and([
            sql`e.account_id = ${accountId}`,
            sql`e.created_at > now() - make_interval(days => ${EVENT_DAYS})`,
            ...(filter.after === undefined ? [] : [sql`e.id > ${filter.after}`]),
            ...(filter.types === undefined ? [] : [sql`e.type in ${sql.in(filter.types)}`]),
            ...(filter.site_id === undefined ? [] : [sql`e.site_id = ${filter.site_id}`])
          ])}
          order by e.id limit ${filter.limit}`
        return yield* decodeEvents(rows.map((row) => row.message))
      }).pipe(Effect.orDie)

    /** Whether `id` is an event of the account still kept. */
    const exists = SqlSchema.findAll({
      Request: Schema.Struct({ accountId: Schema.Number, id: Schema.Number }),
      Result: Schema.Struct({ id: Schema.Number }),
      execute: (req) => sql`select id from events where id = ${req.id} and account_id = ${req.accountId}
        and created_at > now() - make_interval(days => ${EVENT_DAYS})`
    })

    /** Deletes the events older than EVENT_DAYS days; how many. */
    const prune = sql<{ readonly n: number }>`with d as (
        delete from events where created_at < now() - make_interval(days => ${EVENT_DAYS}) returning 1
      ) select count(*)::int as n from d`.pipe(
      Effect.map(([row]) => row?.n ?? 0),
      Effect.orDie
    )

    return {
      insert,
      list,
      exists: (accountId: AccountId, id: number) =>
        exists({ accountId, id }).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      prune
    }
  })
}) {}
