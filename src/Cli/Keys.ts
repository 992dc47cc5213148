import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { ApiKeys } from "../Auth/ApiKeys.js"
import { ApiKeyId } from "../Domain/Ids.js"
import { CliError } from "./CliError.js"

export const keyCreateCommand = Command.make(
  "create",
  {
    account: Options.text("account").pipe(Options.withDescription("E-mail of a user of the account.")),
    name: Options.text("name").pipe(
      Options.withDescription("A label that tells the key apart in lists."),
      Options.withDefault("cbs key create")
    ),
    admin: Options.boolean("admin").pipe(
      Options.withDescription("An admin key reads every account's data and may filter GET /api/v1/sites.")
    )
  },
  ({ account, name, admin }) =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const keys = yield* ApiKeys
      const found = yield* accounts.findByEmail(account)
      if (Option.isNone(found)) return yield* new CliError({ message: `no account has a user with e-mail ${account}` })
      const { key, row } = yield* keys.create({ accountId: found.value.account_id, name, isAdmin: admin })
      yield* Console.log(`API key: ${key}`)
      yield* Console.log(`key id: ${row.id}`)
      yield* Console.log(`prefix: ${row.prefix}`)
      yield* Console.log(
        `account: ${found.value.email} (account id ${found.value.account_id})${admin ? ", admin" : ""}`
      )
      yield* Console.log("The key is shown only this once: store it now.")
    }).pipe(Effect.provide([Accounts.Default, ApiKeys.Default]))
).pipe(Command.withDescription("Create an API key for an account and print it, once."))

export const keyRevokeCommand = Command.make(
  "revoke",
  { id: Options.integer("id").pipe(Options.withDescription("The key's id, as `cbs key create` printed it.")) },
  ({ id }) =>
    Effect.gen(function* () {
      const keys = yield* ApiKeys
      const revoked = id > 0 && Number.isSafeInteger(id) ? yield* keys.revoke(ApiKeyId.make(id)) : Option.none()
      if (Option.isNone(revoked)) return yield* new CliError({ message: `no API key has id ${id}` })
      yield* Console.log(`API key ${revoked.value.id} (${revoked.value.prefix}…) is revoked.`)
    }).pipe(Effect.provide(ApiKeys.Default))
).pipe(Command.withDescription("Revoke an API key: it stops working at once."))

export const keyCommand = Command.make("key").pipe(
  Command.withDescription("Manage API keys."),
  Command.withSubcommands([keyCreateCommand, keyRevokeCommand])
)
