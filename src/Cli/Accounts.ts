import { Command, Options } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"

export const accountCreateCommand = Command.make(
  "create",
  {
    email: Options.text("email").pipe(
      Options.withPseudoName("E"),
      Options.withDescription("The first user's e-mail (sign-in and key lookups).")
    ),
    name: Options.text("name").pipe(Options.withPseudoName("N"), Options.withDescription("The account's name.")),
    password: Options.text("password").pipe(
      Options.withPseudoName("P"),
      Options.withDescription(
        "The first user's password (at least 8 characters). Visible to other users of the machine: prefer --password-stdin or CBS_PASSWORD. Without any, no password sign-in."
      ),
      Options.optional
    ),
    passwordStdin: Options.boolean("password-stdin").pipe(
      Options.withDescription("Read the password from standard input (its first line).")
    ),
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
    email: Options.text("email").pipe(Options.withPseudoName("E"), Options.withDescription("The user's e-mail.")),
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
