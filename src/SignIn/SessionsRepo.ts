import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, UserId } from "../Domain/Ids.js"

/** The signed-in user behind a live session. */
export class SessionUser extends Schema.Class<SessionUser>("SessionUser")({
  user_id: UserId,
  account_id: AccountId,
  email: Schema.String,
  is_admin: Schema.Boolean
}) {}

const SignInUser = Schema.Struct({ id: UserId, password_hash: Schema.NullOr(Schema.String) })
const FailureCounts = Schema.Struct({ by_email: Schema.Number, by_ip: Schema.Number })

/** Web sessions and failed sign-in attempts. Times come from the service's clock (ISO strings). */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("SignIn/SessionsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertSession = (row: {
      readonly id_hash: Uint8Array
      readonly user_id: UserId
      readonly created_at: string
      readonly expires_at: string
    }) => sql`insert into web_sessions ${sql.insert(row)}`.pipe(Effect.asVoid, Effect.orDie)

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

    const countFailures = SqlSchema.single({
      Request: Schema.Struct({ email: Schema.String, ip: Schema.NullOr(Schema.String), since: Schema.String }),
      Result: FailureCounts,
      execute: ({ email, ip, since }) => sql`
        select
          (select count(*)::int from sign_in_failures where email = ${email} and at > ${since}::timestamptz) as by_email,
          (select count(*)::int from sign_in_failures
            where ip is not null and ip = ${ip} and at > ${since}::timestamptz) as by_ip`
    })

    const recordFailure = (row: { readonly email: string; readonly ip: string | null; readonly at: string }) =>
      sql`insert into sign_in_failures ${sql.insert(row)}`.pipe(Effect.asVoid, Effect.orDie)

    /** A successful sign-in forgives the e-mail's earlier failures (an address's stay counted). */
    const clearFailures = (email: string) =>
      sql`delete from sign_in_failures where email = ${email}`.pipe(Effect.asVoid, Effect.orDie)

    /** Deletes expired sessions and failures older than `before` (along their time indexes). */
    const prune = (now: string, before: string) =>
      Effect.all(
        [
          sql`delete from web_sessions where expires_at < ${now}::timestamptz`,
          sql`delete from sign_in_failures where at < ${before}::timestamptz`
        ],
        { discard: true }
      ).pipe(Effect.orDie)

    return {
      insertSession,
      findSession: (hash: Uint8Array, now: string) => findSession({ hash, now }).pipe(Effect.orDie),
      deleteSession,
      findUserByEmail: (email: string) => findUserByEmail(email).pipe(Effect.orDie),
      countFailures: (req: Parameters<typeof countFailures>[0]) => countFailures(req).pipe(Effect.orDie),
      recordFailure,
      clearFailures,
      prune
    }
  })
}) {}
