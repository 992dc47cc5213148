import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

export class StoredAnswer extends Schema.Class<StoredAnswer>("StoredAnswer")({
  request_sha256: Schema.String,
  status: Schema.NullOr(Schema.Number),
  body: Schema.NullOr(Schema.String),
  content_type: Schema.NullOr(Schema.String)
}) {}

/** Idempotency keys and the answers kept under them (see migration 0008). */
export class IdempotencyRepo extends Effect.Service<IdempotencyRepo>()("Idempotency/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Claims a key for a request, atomically: true when this request is the first under the key (an expired key
     * is deleted first, so it can be claimed again).
     */
    const claim = (credential: string, key: string, digest: string, expiredBefore: string) =>
      Effect.gen(function* () {
        yield* sql`delete from idempotency_keys
          where credential = ${credential} and key = ${key} and created_at < ${expiredBefore}::timestamptz`
        const rows = yield* sql`insert into idempotency_keys (credential, key, request_sha256)
          values (${credential}, ${key}, ${digest}) on conflict do nothing returning 1 as claimed`
        return rows.length === 1
      }).pipe(Effect.orDie)

    const find = (credential: string, key: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: StoredAnswer,
        execute: () => sql`select request_sha256, status, body, content_type from idempotency_keys
          where credential = ${credential} and key = ${key}`
      })(undefined).pipe(Effect.orDie)

    const keep = (credential: string, key: string, answer: { status: number; body: string; contentType: string }) =>
      sql`update idempotency_keys set status = ${answer.status}, body = ${answer.body},
          content_type = ${answer.contentType}
        where credential = ${credential} and key = ${key}`.pipe(Effect.asVoid, Effect.orDie)

    const release = (credential: string, key: string) =>
      sql`delete from idempotency_keys where credential = ${credential} and key = ${key}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Deletes keys older than `before`, along idempotency_keys_created_at_idx; returns how many. */
    const pruneBefore = (before: string) =>
      sql`delete from idempotency_keys where created_at < ${before}::timestamptz`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )

    return { claim, find, keep, release, pruneBefore }
  })
}) {}
