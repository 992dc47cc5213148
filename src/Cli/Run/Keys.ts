import { Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { ApiKeys } from "../../Auth/ApiKeys.js"
import { ApiKeyId } from "../../Domain/Ids.js"
import { CliError, UsageError } from "../CliError.js"
import type { Result } from "../Output.js"

export const keyCreate = (args: {
  readonly account: string
  readonly name: string
  readonly admin: boolean
  readonly readOnly: boolean
}) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const keys = yield* ApiKeys
    const found = yield* accounts.findByEmail(args.account)
    if (Option.isNone(found)) {
      return yield* new CliError({ message: `no account has a user with e-mail ${args.account}` })
    }
    const { email, account_id } = found.value
    // A name the key rule refuses is a bad option value: a usage error, in the rule's words.
    const { key, row } = yield* keys
      .create({ accountId: account_id, name: args.name, isAdmin: args.admin, readOnly: args.readOnly })
      .pipe(Effect.catchTag("ValidationError", (error) => new UsageError({ message: error.message })))
    return {
      text: [
        `API key: ${key}`,
        `key id: ${row.id}`,
        `prefix: ${row.prefix}`,
        `account: ${email} (account id ${account_id})${args.admin ? ", admin" : ""}${args.readOnly ? ", read only" : ""}`,
        "The key is shown only this once: store it now."
      ],
      json: {
        key,
        id: row.id,
        prefix: row.prefix,
        name: row.name,
        admin: args.admin,
        read_only: args.readOnly,
        account_id,
        email
      }
    } satisfies Result
  }).pipe(Effect.provide([Accounts.Default, ApiKeys.Default]))

export const keyRevoke = (id: number) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const revoked = Number.isSafeInteger(id) ? yield* keys.revoke(ApiKeyId.make(id)) : Option.none()
    if (Option.isNone(revoked)) return yield* new CliError({ message: `no API key has id ${id}` })
    return {
      text: [`API key ${revoked.value.id} (${revoked.value.prefix}…) is revoked.`],
      json: { id: revoked.value.id, prefix: revoked.value.prefix, revoked: true }
    } satisfies Result
  }).pipe(Effect.provide(ApiKeys.Default))
