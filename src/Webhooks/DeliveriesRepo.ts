import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, type Option, Schema } from "effect"

/** A delivery to attempt, with what its endpoint signs and sends with. */
export const PendingDelivery = Schema.Struct({
  id: Schema.Number,
  endpoint_id: Schema.Number,
  message_id: Schema.String,
  payload: Schema.Unknown,
  state: Schema.String,
  attempts: Schema.Number,
  created_at: Schema.DateFromSelf,
  url: Schema.String,
  enabled: Schema.Boolean,
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String),
  previous_secret_until: Schema.NullOr(Schema.DateFromSelf),
  failing_since: Schema.NullOr(Schema.DateFromSelf)
})
export type PendingDelivery = typeof PendingDelivery.Type

/** One attempt as it is recorded. */
export interface AttemptRecord {
  readonly delivery: number
  readonly endpoint: number
  /** The delivery's attempts before this one: the record applies only if no other run recorded it meanwhile. */
  readonly attempt: number
  readonly attemptedAt: Date
  readonly status: number | null
  readonly durationMs: number
  readonly response: string | null
  readonly error: string | null
  readonly succeeded: boolean
  /** When the next attempt is due; none when the delivery is done (succeeded, or its schedule has ended). */
  readonly nextAt: Date | undefined
  /** Why the endpoint is disabled by this attempt (410 Gone, three days of failures); none when it is not. */
  readonly disable: string | undefined
}

/** An answer's text as a PostgreSQL text column holds it: without NUL characters, which it refuses. */
const storable = (text: string | null) => (text === null ? null : text.replaceAll("\u0000", ""))

/** How long deliveries and their attempts are kept. */
export const DELIVERY_DAYS = 30

export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("Webhooks/DeliveriesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const load = SqlSchema.findOne({
      Request: Schema.Number,
      Result: PendingDelivery,
      execute: (id) => sql`
        select d.id, d.endpoint_id, d.message_id, d.payload, d.state, d.attempts, d.created_at,
          w.url, w.enabled, w.secret, w.previous_secret, w.previous_secret_until, w.failing_since
        from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
        where d.id = ${id}`
    })

    /**
     * Records an attempt in one transaction: the attempt, the delivery's new state, the endpoint's failing time (or
     * its disabling). False when another run recorded this attempt first (then nothing is written).
     */
    const record = (attempt: AttemptRecord) =>
      Effect.gen(function* () {
        const state = attempt.succeeded ? "succeeded" : attempt.nextAt === undefined ? "failed" : "pending"
        const updated = yield* sql`
          update webhook_deliveries set attempts = attempts + 1, state = ${state},
            next_attempt_at = ${attempt.nextAt ?? null}
          where id = ${attempt.delivery} and attempts = ${attempt.attempt} and state = 'pending'
          returning id`
        if (updated.length === 0) return false
        yield* sql`insert into webhook_attempts
          (delivery_id, endpoint_id, attempted_at, status, duration_ms, response, error)
          values (${attempt.delivery}, ${attempt.endpoint}, ${attempt.attemptedAt}, ${attempt.status},
            ${attempt.durationMs}, ${storable(attempt.response)}, ${attempt.error})`
        if (attempt.succeeded) {
          yield* sql`update webhook_endpoints set failing_since = null where id = ${attempt.endpoint}`
        } else {
          yield* sql`update webhook_endpoints set
              failing_since = coalesce(failing_since, ${attempt.attemptedAt}),
              enabled = enabled and ${attempt.disable === undefined},
              disabled_reason = coalesce(${attempt.disable ?? null}, disabled_reason)
            where id = ${attempt.endpoint}`
        }
        return true
      })

    /** Deletes the deliveries and attempts older than DELIVERY_DAYS days; how many attempts. */
    const prune = Effect.gen(function* () {
      const [attempts] = yield* sql<{ readonly n: number }>`with d as (
          delete from webhook_attempts where attempted_at < now() - make_interval(days => ${DELIVERY_DAYS}) returning 1
        ) select count(*)::int as n from d`
      yield* sql`delete from webhook_deliveries
        where created_at < now() - make_interval(days => ${DELIVERY_DAYS}) and state <> 'pending'`
      return attempts?.n ?? 0
    })

    return {
      load: (id: number) => load(id).pipe(Effect.orDie) as Effect.Effect<Option.Option<PendingDelivery>>,
      record: (attempt: AttemptRecord) => record(attempt).pipe(Effect.orDie),
      prune: prune.pipe(Effect.orDie)
    }
  })
}) {}
