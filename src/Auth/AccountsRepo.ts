import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, UserId } from "../Domain/Ids.js"

export class AccountRow extends Schema.Class<AccountRow>("AccountRow")({
  account_id: AccountId,
  user_id: UserId,
  email: Schema.String,
  name: Schema.String
}) {}

export class AccountsRepo extends Effect.Service<AccountsRepo>()("Auth/AccountsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertAccount = SqlSchema.single({
      Request: Schema.Struct({ name: Schema.String }),
      Result: Schema.Struct({ id: AccountId }),
      execute: (req) => sql`insert into accounts ${sql.insert(req)} returning id`
    })

    const insertUser = SqlSchema.single({
      Request: Schema.Struct({
        account_id: AccountId,
        email: Schema.String,
        name: Schema.String,
        password_hash: Schema.NullOr(Schema.String),
        is_admin: Schema.Boolean
      }),
      Result: Schema.Struct({ id: UserId }),
      execute: (req) => sql`insert into users ${sql.insert(req)} returning id`
    })

    const findByEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: AccountRow,
      execute: (email) => sql`
        select u.account_id, u.id as user_id, u.email, a.name
        from users u join accounts a on a.id = u.account_id
        where lower(u.email) = lower(${email})`
    })

    const findByUserId = SqlSchema.findOne({
      Request: UserId,
      Result: AccountRow,
      execute: (id) => sql`
        select u.account_id, u.id as user_id, u.email, a.name
        from users u join accounts a on a.id = u.account_id
        where u.id = ${id}`
    })

    /** A new password also ends the user's browser sessions: whoever knew the old one is signed out. */
    const setPassword = (userId: UserId, passwordHash: string) =>
      Effect.zipRight(
        sql`update users set password_hash = ${passwordHash} where id = ${userId}`,
        sql`delete from web_sessions where user_id = ${userId}`
      ).pipe(Effect.asVoid, sql.withTransaction)

    const renameAccount = (id: AccountId, name: string) =>
      sql`update accounts set name = ${name} where id = ${id}`.pipe(Effect.asVoid)

    return {
      insertAccount: (name: string) =>
        insertAccount({ name }).pipe(
          Effect.map((row) => row.id),
          Effect.orDie
        ),
      insertUser: (user: Parameters<typeof insertUser>[0]) =>
        insertUser(user).pipe(
          Effect.map((row) => row.id),
          Effect.orDie
        ),
      findByEmail: (email: string) => findByEmail(email).pipe(Effect.orDie),
      findByUserId: (id: UserId) => findByUserId(id).pipe(Effect.orDie),
      setPassword: (userId: UserId, passwordHash: string) => setPassword(userId, passwordHash).pipe(Effect.orDie),
      renameAccount: (id: AccountId, name: string) => renameAccount(id, name).pipe(Effect.orDie)
    }
  })
}) {}
