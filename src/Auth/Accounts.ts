import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { UserId } from "../Domain/Ids.js"
import { AccountsRepo } from "./AccountsRepo.js"
import { hashPassword } from "./Passwords.js"

export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {
  override get message() {
    return `a user with the e-mail ${this.email} already exists`
  }
}

export class Accounts extends Effect.Service<Accounts>()("Auth/Accounts", {
  dependencies: [AccountsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AccountsRepo
    const sql = yield* SqlClient.SqlClient

    /** Creates an account with its first user; the password (if any) is stored as an scrypt hash. */
    const create = Effect.fn("Accounts.create")(function* (options: {
      readonly email: string
      readonly name: string
      readonly password: Option.Option<string>
      readonly isAdmin?: boolean
    }) {
      const passwordHash = Option.isSome(options.password) ? yield* hashPassword(options.password.value) : null
      return yield* Effect.gen(function* () {
        if (Option.isSome(yield* repo.findByEmail(options.email))) {
          return yield* new EmailTaken({ email: options.email })
        }
        const accountId = yield* repo.insertAccount(options.name)
        const userId = yield* repo.insertUser({
          account_id: accountId,
          email: options.email,
          name: options.name,
          password_hash: passwordHash,
          is_admin: options.isAdmin ?? false
        })
        return { accountId, userId }
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    return {
      create,
      rename: repo.renameAccount,
      /** Sets a user's password (stored as an scrypt hash). */
      setPassword: (userId: UserId, password: string) =>
        Effect.flatMap(hashPassword(password), (hash) => repo.setPassword(userId, hash)),
      /**
       * Sets a user's password from a hash made beforehand with `hashPassword` (outside the caller's transaction, so
       * that no connection waits on the hashing); ends the user's browser sessions like `setPassword`.
       */
      setPasswordHash: repo.setPassword,
      findByEmail: repo.findByEmail,
      findByUserId: repo.findByUserId
    }
  })
}) {}
