import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

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

    const loadAll = SqlSchema.findAll({
      Request: Schema.Array(Schema.Number),
      Result: PendingDelivery,
      execute: (ids) => sql`
        select d.id, d.endpoint_id, d.message_id, d.payload, d.state, d.attempts, d.created_at,
          w.url, w.enabled, w.secret, w.previous_secret, w.previous_secret_until, w.failing_since
        from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
        where d.id in ${sql.in(ids)}`
    })

    /**
     * Records an attempt in one statement (so atomically, inside a transaction or not): the attempt, the delivery's
     * new state, the endpoint's failing time (or its disabling). False when another run recorded this attempt first
     * (then nothing is written). A success writes the endpoint's row only when it was failing: deliveries to one
     * endpoint do not queue for its row lock.
     */
    const record = (attempt: AttemptRecord) =>
      Effect.gen(function* () {
        const state = attempt.succeeded ? "succeeded" : attempt.nextAt === undefined ? "failed" : "pending"
        const endpoint = attempt.succeeded
          ? sql`update webhook_endpoints w set failing_since = null
              from d where w.id = d.endpoint_id and w.failing_since is not null`
          : sql`update webhook_endpoints w set
              failing_since = coalesce(w.failing_since, ${attempt.attemptedAt}::timestamptz),
              enabled = w.enabled and ${attempt.disable === undefined}::boolean,
              disabled_reason = coalesce(${attempt.disable ?? null}::text, w.disabled_reason)
            from d where w.id = d.endpoint_id`
        const [row] = yield* sql<{ readonly n: number }>`
          with d as (
            update webhook_deliveries set attempts = attempts + 1, state = ${state},
              next_attempt_at = ${attempt.nextAt ?? null}::timestamptz
            where id = ${attempt.delivery} and attempts = ${attempt.attempt} and state = 'pending'
            returning id, endpoint_id
          ), a as (
            insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, response, error)
            select d.id, d.endpoint_id, ${attempt.attemptedAt}::timestamptz, ${attempt.status}::int,
              ${attempt.durationMs}::int, ${storable(attempt.response)}::text, ${attempt.error}::text
            from d
          ), e as (${endpoint})
          select count(*)::int as n from d`
        return (row?.n ?? 0) > 0
      })

    /**
     * Records successful attempts, several at once, in one statement (see `record`): the ids of the deliveries whose
     * attempt it recorded (the others were recorded by another run first).
     */
    const recordSucceeded = (attempts: ReadonlyArray<AttemptRecord>) =>
      Effect.gen(function* () {
        const rows = attempts.map((attempt) => ({
          delivery: attempt.delivery,
          attempt: attempt.attempt,
          attempted_at: attempt.attemptedAt.toISOString(),
          status: attempt.status,
          duration_ms: attempt.durationMs,
          response: storable(attempt.response)
        }))
        const recorded = yield* sql<{ readonly id: number }>`
          with r as (
            select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(delivery bigint, attempt int,
              attempted_at timestamptz, status int, duration_ms int, response text)
          ), d as (
            update webhook_deliveries w set attempts = w.attempts + 1, state = 'succeeded', next_attempt_at = null
            from r where w.id = r.delivery and w.attempts = r.attempt and w.state = 'pending'
            returning w.id, w.endpoint_id
          ), a as (
            insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, response, error)
            select d.id, d.endpoint_id, r.attempted_at, r.status, r.duration_ms, r.response, null
            from d join r on r.delivery = d.id
          ), e as (
            update webhook_endpoints w set failing_since = null
            from d where w.id = d.endpoint_id and w.failing_since is not null
          )
          select id from d`
        return new Set(recorded.map((row) => Number(row.id)))
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
      /** The deliveries `ids` that still exist, with their endpoints, in one statement. */
      loadAll: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<PendingDelivery>>([])
          : (loadAll(ids).pipe(Effect.orDie) as Effect.Effect<ReadonlyArray<PendingDelivery>>),
      record: (attempt: AttemptRecord) => record(attempt).pipe(Effect.orDie),
      recordSucceeded: (attempts: ReadonlyArray<AttemptRecord>) => recordSucceeded(attempts).pipe(Effect.orDie),
      prune: prune.pipe(Effect.orDie)
    }
  })
}) {}
