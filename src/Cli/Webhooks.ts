import { Options } from "@effect/cli"
import { eventTypes } from "../Domain/Event.js"
import { commandGroup, commandsIn } from "./Commands.js"
import { idOption, textOption } from "./Values.js"

const webhooks = commandsIn(() => import("./Run/Webhooks.js"))

const account = textOption("account", "E", "E-mail of a user of the account.")

export const webhookCreateCommand = webhooks(
  "create",
  "Create a webhook endpoint for an account and print its signing secret, once.",
  {
    account,
    url: textOption("url", "U", "The https address deliveries are posted to."),
    events: textOption(
      "events",
      "T,…",
      `Event types to send, comma-separated (default: all, ${eventTypes.join(",")}).`
    ).pipe(Options.optional)
  },
  (run, args) => run.webhookCreate(args)
)

export const webhookListCommand = webhooks(
  "list",
  "List an account's webhook endpoints (never their secrets).",
  { account },
  (run, args) => run.webhookList(args.account)
)

export const webhookDeleteCommand = webhooks(
  "delete",
  "Delete a webhook endpoint with its deliveries.",
  { id: idOption("id", "The endpoint's id, as `cbs webhook create` printed it.") },
  (run, args) => run.webhookDelete(args.id)
)

export const webhookCommand = commandGroup("webhook", "Manage webhook endpoints.", [
  webhookCreateCommand,
  webhookListCommand,
  webhookDeleteCommand
])
