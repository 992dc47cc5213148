import { Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { CliError } from "../CliError.js"

/** What a lookup found, or a `CliError` with `message` when it found nothing. */
export const found =
  (message: string) =>
  <A, E, R>(lookup: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | CliError, R> =>
    Effect.flatMap(
      lookup,
      Option.match({ onNone: () => Effect.fail(new CliError({ message })), onSome: Effect.succeed })
    )

/** What `lookup` finds for the id an option gave (`--id N`), or a `CliError` with `message`; an id past the safe integers finds nothing. */
export const foundById = <A, E, R>(
  id: number,
  lookup: (id: number) => Effect.Effect<Option.Option<A>, E, R>,
  message: string
) => (Number.isSafeInteger(id) ? lookup(id) : Effect.succeedNone).pipe(found(message))

/** The account of the user with e-mail `email`, or a `CliError` naming it. */
export const accountOf = (email: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.findByEmail(email)).pipe(
    found(`no account has a user with e-mail ${email}`)
  )
