import { Effect } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { ApiKeys } from "../../Auth/ApiKeys.js"
import { ApiKeyId } from "../../Domain/Ids.js"
import { UsageError } from "../CliError.js"
import type { Result } from "../Output.js"
import { accountOf, foundById } from "./Found.js"

export const keyCreate = (args: {
  readonly account: string
  readonly name: string
  readonly admin: boolean
  readonly readOnly: boolean
}) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const { email, account_id } = yield* accountOf(args.account)
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
    const revoked = yield* foundById(id, (id) => keys.revoke(ApiKeyId.make(id)), `no API key has id ${id}`)
    return {
      text: [`API key ${revoked.id} (${revoked.prefix}…) is revoked.`],
      json: { id: revoked.id, prefix: revoked.prefix, revoked: true }
    } satisfies Result
  }).pipe(Effect.provide(ApiKeys.Default))
