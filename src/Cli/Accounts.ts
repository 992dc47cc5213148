import { Options } from "@effect/cli"
import { commandGroup, commandsIn } from "./Commands.js"
import { flagOption, textOption } from "./Values.js"

const accounts = commandsIn(() => import("./Run/Accounts.js"))

export const accountCreateCommand = accounts(
  "create",
  "Create an account with its first user; prints the ids.",
  {
    email: textOption("email", "E", "The first user's e-mail (sign-in and key lookups)."),
    name: textOption("name", "N", "The account's name."),
    password: textOption(
      "password",
      "P",
      "The first user's password (8 to 1024 characters). Visible to other users of the machine: prefer --password-stdin or CBS_PASSWORD. Without any, no password sign-in."
    ).pipe(Options.optional),
    passwordStdin: flagOption("password-stdin", "Read the password from standard input (its first line).")
  },
  (run, args) => run.accountCreate(args)
)

export const accountPasswordCommand = accounts(
  "password",
  "Set a user's password, read from standard input (its first line); ends the user's browser sessions.",
  { email: textOption("email", "E", "The user's e-mail.") },
  (run, args) => run.accountPassword(args)
)

export const accountCommand = commandGroup("account", "Manage accounts.", [
  accountCreateCommand,
  accountPasswordCommand
])
