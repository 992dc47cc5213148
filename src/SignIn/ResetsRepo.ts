import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { UserId } from "../Domain/Ids.js"
import { insertRow } from "../Sql/InsertRow.js"

/** A reset link as it is stored: its selector, the hash of its verifier, its user and its times. */
type ResetInsert = {
  readonly selector: string
  readonly verifier_hash: Uint8Array
  readonly user_id: UserId
  readonly created_at: string
  readonly expires_at: string
}

/** A stored link as a request finds it, judged against the service's clock. */
export class StoredReset extends Schema.Class<StoredReset>("StoredReset")({
  verifier_hash: Schema.Uint8ArrayFromSelf,
  user_id: UserId,
  email: Schema.String,
  expired: Schema.Boolean,
  used: Schema.Boolean
}) {}

/** Password reset links. Times come from the service's clock (ISO strings). */
export class ResetsRepo extends Effect.Service<ResetsRepo>()("SignIn/ResetsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: ResetInsert) => insertRow(sql, "password_resets", row)

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ selector: Schema.String, now: Schema.String }),
      Result: StoredReset,
      execute: ({ selector, now }) => sql`
        select r.verifier_hash, r.user_id, u.email,
          r.expires_at <= ${now}::timestamptz as expired, r.used_at is not null as used
        from password_resets r join users u on u.id = r.user_id
        where r.selector = ${selector}`
    })

    /**
     * Marks a live, unused link used; whether it was (one statement, so of two requests with the same link only one
     * succeeds). Run in the transaction that sets the password, so the link stays unused if that fails.
     */
    const claim = (selector: string, now: string) =>
      sql`
        update password_resets set used_at = ${now}::timestamptz
        where selector = ${selector} and used_at is null and expires_at > ${now}::timestamptz
        returning selector`.pipe(Effect.map((rows) => rows.length === 1))

    /** Deletes the user's other links: a new password ends them. */
    const deleteOthers = (userId: UserId, selector: string) =>
      sql`delete from password_resets where user_id = ${userId} and selector <> ${selector}`.pipe(Effect.asVoid)

    /** Deletes expired links, used or not (along their expiry index). */
    const prune = (now: string) =>
      sql`delete from password_resets where expires_at < ${now}::timestamptz`.pipe(Effect.asVoid, Effect.orDie)

    return {
      insert,
      find: (selector: string, now: string) => find({ selector, now }).pipe(Effect.orDie),
      claim,
      deleteOthers,
      prune
    }
  })
}) {}
