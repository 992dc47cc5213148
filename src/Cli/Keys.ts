import { Command, Options } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"
import { flagOption, idOption, textOption } from "./Values.js"

export const keyCreateCommand = Command.make(
  "create",
  {
    account: textOption("account", "E", "E-mail of a user of the account."),
    name: textOption("name", "N", "A label that tells the key apart in lists.").pipe(
      Options.withDefault("cbs key create")
    ),
    admin: flagOption("admin", "An admin key reads every account's data and may filter GET /api/v1/sites."),
    readOnly: flagOption(
      "read-only",
      "The key can read but not change articles (its PUT, PATCH and featured image are 403)."
    ),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Keys.js"),
    (run, args) => run.keyCreate(args)
  )
).pipe(Command.withDescription("Create an API key for an account and print it, once."))

export const keyRevokeCommand = Command.make(
  "revoke",
  { id: idOption("id", "The key's id, as `cbs key create` printed it."), json: jsonOption },
  loadAndPrint(
    () => import("./Run/Keys.js"),
    (run, args) => run.keyRevoke(args.id)
  )
).pipe(Command.withDescription("Revoke an API key: it stops working at once."))

export const keyCommand = Command.make("key").pipe(
  Command.withDescription("Manage API keys."),
  Command.withSubcommands([keyCreateCommand, keyRevokeCommand])
)
