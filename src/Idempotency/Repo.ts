import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

export class StoredAnswer extends Schema.Class<StoredAnswer>("StoredAnswer")({
  request_sha256: Schema.String,
  status: Schema.Number,
  body: Schema.String,
  content_type: Schema.String
}) {}

/** An answer to keep under a key: the request it answers (its digest), and the status and body sent. */
export interface KeptAnswer {
  readonly digest: string
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/**
 * Idempotency keys and the answers kept under them (see migration 0008). Every statement here runs in the
 * transaction of the keyed request (see `Idempotency.once`).
 */
export class IdempotencyRepo extends Effect.Service<IdempotencyRepo>()("Idempotency/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes the key for the rest of the transaction; false when another transaction holds it (a request under the
     * key is running). A transaction-level advisory lock: PostgreSQL releases it when the transaction ends in any
     * way (commit, rollback, a lost connection, a terminated backend, a killed process), so a key is never left
     * taken by a request that no longer runs.
     */
    const take = (credential: string, key: string) =>
      sql<{
        taken: boolean
      }>`select pg_try_advisory_xact_lock(hashtextextended(${`${credential}\n${key}`}, 0)) as taken`.pipe(
        Effect.map((rows) => rows[0]?.taken === true),
        Effect.orDie
      )

    /**
     * The answer kept under a key since `notBefore`. Rows without an answer are claims an earlier version of the
     * service made before running a request; under the lock, no request holds them, so they count as absent.
     */
    const find = (credential: string, key: string, notBefore: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: StoredAnswer,
        execute: () => sql`select request_sha256, status, body, content_type from idempotency_keys
          where credential = ${credential} and key = ${key} and status is not null
            and created_at >= ${notBefore}::timestamptz`
      })(undefined).pipe(Effect.orDie)

    /** Keeps an answer under a key, replacing an expired one (or a claim without an answer). */
    const keep = (credential: string, key: string, answer: KeptAnswer) =>
      sql`insert into idempotency_keys (credential, key, request_sha256, status, body, content_type)
        values (${credential}, ${key}, ${answer.digest}, ${answer.status}, ${answer.body}, ${answer.contentType})
        on conflict (credential, key) do update set request_sha256 = excluded.request_sha256,
          status = excluded.status, body = excluded.body, content_type = excluded.content_type, created_at = now()`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Deletes keys older than `before`, along idempotency_keys_created_at_idx; returns how many. */
    const pruneBefore = (before: string) =>
      sql`delete from idempotency_keys where created_at < ${before}::timestamptz`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )

    return { take, find, keep, pruneBefore }
  })
}) {}
