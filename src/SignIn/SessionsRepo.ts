import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, UserId } from "../Domain/Ids.js"
import { insertRow } from "../Sql/InsertRow.js"

/** The signed-in user behind a live session. */
export class SessionUser extends Schema.Class<SessionUser>("SessionUser")({
  user_id: UserId,
  account_id: AccountId,
  email: Schema.String,
  is_admin: Schema.Boolean
}) {}

/** A session as it is stored: the hash of its id, its user and its times. */
type SessionInsert = {
  readonly id_hash: Uint8Array
  readonly user_id: UserId
  readonly created_at: string
  readonly expires_at: string
}

const SignInUser = Schema.Struct({ id: UserId, password_hash: Schema.NullOr(Schema.String) })

/** Web sessions and the users who sign in. Times come from the service's clock (ISO strings). */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("SignIn/SessionsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertSession = (row: SessionInsert) => insertRow(sql, "web_sessions", row)

    const findSession = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Schema.Uint8ArrayFromSelf, now: Schema.String }),
      Result: SessionUser,
      execute: ({ hash, now }) => sql`
        select u.id as user_id, u.account_id, u.email, u.is_admin
        from web_sessions s join users u on u.id = s.user_id
        where s.id_hash = ${hash} and s.expires_at > ${now}::timestamptz`
    })

    const deleteSession = (hash: Uint8Array) =>
      sql`delete from web_sessions where id_hash = ${hash}`.pipe(Effect.asVoid, Effect.orDie)

    const findUserByEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: SignInUser,
      execute: (email) => sql`select id, password_hash from users where lower(email) = lower(${email})`
    })

    /**
     * Stores a password's new hash in place of `previous`, unless the password was changed meanwhile (by an import
     * or the command line): a newer password is never overwritten by an upgrade of the old one.
     */
    const replacePasswordHash = (change: {
      readonly user_id: UserId
      readonly previous: string
      readonly next: string
    }) =>
      sql`update users set password_hash = ${change.next}
        where id = ${change.user_id} and password_hash = ${change.previous}`.pipe(Effect.asVoid, Effect.orDie)

    /** Deletes expired sessions (along their expiry index). */
    const pruneSessions = (now: string) =>
      sql`delete from web_sessions where expires_at < ${now}::timestamptz`.pipe(Effect.asVoid, Effect.orDie)

    return {
      insertSession,
      findSession: (hash: Uint8Array, now: string) => findSession({ hash, now }).pipe(Effect.orDie),
      deleteSession,
      findUserByEmail: (email: string) => findUserByEmail(email).pipe(Effect.orDie),
      replacePasswordHash,
      pruneSessions
    }
  })
}) {}
