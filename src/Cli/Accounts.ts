import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { CliError } from "./CliError.js"

const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)

export const accountCreateCommand = Command.make(
  "create",
  {
    email: Options.text("email").pipe(Options.withDescription("The first user's e-mail (sign-in and key lookups).")),
    name: Options.text("name").pipe(Options.withDescription("The account's name.")),
    password: Options.text("password").pipe(
      Options.withDescription("The first user's password (at least 8 characters); without it, no password sign-in."),
      Options.optional
    )
  },
  ({ email, name, password }) =>
    Effect.gen(function* () {
      if (!looksLikeEmail(email)) return yield* new CliError({ message: `--email ${email} is not an e-mail address` })
      if (name.trim() === "") return yield* new CliError({ message: "--name must not be empty" })
      if (Option.exists(password, (p) => p.length < 8)) {
        return yield* new CliError({ message: "--password must be at least 8 characters" })
      }
      const accounts = yield* Accounts
      const created = yield* accounts.create({ email, name, password })
      yield* Console.log(`Account created for ${email}.`)
      yield* Console.log(`account id: ${created.accountId}`)
      yield* Console.log(`user id: ${created.userId}`)
    }).pipe(Effect.provide(Accounts.Default))
).pipe(Command.withDescription("Create an account with its first user; prints the ids."))

export const accountCommand = Command.make("account").pipe(
  Command.withDescription("Manage accounts."),
  Command.withSubcommands([accountCreateCommand])
)
