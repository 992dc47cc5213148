import { Command, Options } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"
import { flagOption, textOption } from "./Values.js"

export const accountCreateCommand = Command.make(
  "create",
  {
    email: textOption("email", "E", "The first user's e-mail (sign-in and key lookups)."),
    name: textOption("name", "N", "The account's name."),
    password: textOption(
      "password",
      "P",
      "The first user's password (8 to 1024 characters). Visible to other users of the machine: prefer --password-stdin or CBS_PASSWORD. Without any, no password sign-in."
    ).pipe(Options.optional),
    passwordStdin: flagOption("password-stdin", "Read the password from standard input (its first line)."),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Accounts.js"),
    (run, args) => run.accountCreate(args)
  )
).pipe(Command.withDescription("Create an account with its first user; prints the ids."))

export const accountPasswordCommand = Command.make(
  "password",
  {
    email: textOption("email", "E", "The user's e-mail."),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Accounts.js"),
    (run, args) => run.accountPassword(args)
  )
).pipe(
  Command.withDescription(
    "Set a user's password, read from standard input (its first line); ends the user's browser sessions."
  )
)

export const accountCommand = Command.make("account").pipe(
  Command.withDescription("Manage accounts."),
  Command.withSubcommands([accountCreateCommand, accountPasswordCommand])
)
