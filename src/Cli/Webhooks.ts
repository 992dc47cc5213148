import { Command, Options } from "@effect/cli"
import { eventTypes } from "../Domain/Event.js"
import { jsonOption, loadAndPrint } from "./Output.js"
import { idOption, textOption } from "./Values.js"

const account = textOption("account", "E", "E-mail of a user of the account.")

export const webhookCreateCommand = Command.make(
  "create",
  {
    account,
    url: textOption("url", "U", "The https address deliveries are posted to."),
    events: textOption(
      "events",
      "T,…",
      `Event types to send, comma-separated (default: all, ${eventTypes.join(",")}).`
    ).pipe(Options.optional),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Webhooks.js"),
    (run, args) => run.webhookCreate(args)
  )
).pipe(Command.withDescription("Create a webhook endpoint for an account and print its signing secret, once."))

export const webhookListCommand = Command.make(
  "list",
  { account, json: jsonOption },
  loadAndPrint(
    () => import("./Run/Webhooks.js"),
    (run, args) => run.webhookList(args.account)
  )
).pipe(Command.withDescription("List an account's webhook endpoints (never their secrets)."))

export const webhookDeleteCommand = Command.make(
  "delete",
  { id: idOption("id", "The endpoint's id, as `cbs webhook create` printed it."), json: jsonOption },
  loadAndPrint(
    () => import("./Run/Webhooks.js"),
    (run, args) => run.webhookDelete(args.id)
  )
).pipe(Command.withDescription("Delete a webhook endpoint with its deliveries."))

export const webhookCommand = Command.make("webhook").pipe(
  Command.withDescription("Manage webhook endpoints."),
  Command.withSubcommands([webhookCreateCommand, webhookListCommand, webhookDeleteCommand])
)
