import { Options } from "@effect/cli"
import { commandGroup, commandsIn } from "./Commands.js"
import { flagOption, idOption, textOption } from "./Values.js"

const keys = commandsIn(() => import("./Run/Keys.js"))

export const keyCreateCommand = keys(
  "create",
  "Create an API key for an account and print it, once.",
  {
    account: textOption("account", "E", "E-mail of a user of the account."),
    name: textOption("name", "N", "A label that tells the key apart in lists.").pipe(
      Options.withDefault("cbs key create")
    ),
    admin: flagOption("admin", "An admin key reads every account's data and may filter GET /api/v1/sites."),
    readOnly: flagOption(
      "read-only",
      "The key can read but not change articles (its PUT, PATCH and featured image are 403)."
    )
  },
  (run, args) => run.keyCreate(args)
)

export const keyRevokeCommand = keys(
  "revoke",
  "Revoke an API key: it stops working at once.",
  { id: idOption("id", "The key's id, as `cbs key create` printed it.") },
  (run, args) => run.keyRevoke(args.id)
)

export const keyCommand = commandGroup("key", "Manage API keys.", [keyCreateCommand, keyRevokeCommand])
