import { Effect, Option, Redacted } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { passwordProblem } from "../../Auth/Passwords.js"
import { PasswordFromEnvironment } from "../../Config.js"
import { oneLineProblem } from "../../Domain/Text.js"
import { UsageError } from "../CliError.js"
import type { Result } from "../Output.js"
import { Stdin } from "../Stdin.js"
import { found } from "./Found.js"

const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)

/**
 * The password: `--password`, else `--password-stdin` (the first line of standard input), else `CBS_PASSWORD`.
 * The first is visible to every user of the machine (in the process list); the others are not.
 */
const firstLineOfStdin = (option: string) =>
  Effect.gen(function* () {
    const text = yield* Effect.flatMap(Stdin, (stdin) => stdin.text)
    const line = text.split(/\r?\n/)[0] ?? ""
    if (line === "") return yield* new UsageError({ message: `${option}standard input holds no password` })
    return line
  })

const passwordOf = (args: { readonly password: Option.Option<string>; readonly passwordStdin: boolean }) =>
  Effect.gen(function* () {
    if (Option.isSome(args.password) && args.passwordStdin) {
      return yield* new UsageError({ message: "give the password with --password or --password-stdin, not both" })
    }
    if (Option.isSome(args.password)) return args.password
    if (args.passwordStdin) return Option.some(yield* firstLineOfStdin("--password-stdin: "))
    return Option.map(yield* PasswordFromEnvironment, Redacted.value)
  })

export const accountCreate = (args: {
  readonly email: string
  readonly name: string
  readonly password: Option.Option<string>
  readonly passwordStdin: boolean
}) =>
  Effect.gen(function* () {
    const { email, name } = args
    if (!looksLikeEmail(email)) return yield* new UsageError({ message: `--email ${email} is not an e-mail address` })
    if (name.trim() === "") return yield* new UsageError({ message: "--name must not be empty" })
    const nameProblem = oneLineProblem(name)
    if (nameProblem !== undefined) return yield* new UsageError({ message: `--name ${nameProblem}` })
    const password = yield* passwordOf(args)
    const problem = Option.flatMapNullable(password, passwordProblem)
    if (Option.isSome(problem)) return yield* new UsageError({ message: problem.value })
    const accounts = yield* Accounts
    const created = yield* accounts.create({ email, name, password })
    return {
      text: [`Account created for ${email}.`, `account id: ${created.accountId}`, `user id: ${created.userId}`],
      json: {
        email,
        account_id: created.accountId,
        user_id: created.userId,
        password_sign_in: Option.isSome(password)
      }
    } satisfies Result
  }).pipe(Effect.provide(Accounts.Default))

/** `cbs account password --email E`: the new password is the first line of standard input, never an argument. */
export const accountPassword = (args: { readonly email: string }) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const user = yield* accounts.findByEmail(args.email).pipe(found(`no user has the e-mail ${args.email}`))
    const password = yield* firstLineOfStdin("")
    const problem = passwordProblem(password)
    if (problem !== undefined) return yield* new UsageError({ message: problem })
    yield* accounts.setPassword(user.user_id, password)
    return {
      text: [`Password set for ${user.email}; their browser sessions were ended.`],
      json: { email: user.email, user_id: user.user_id, password_set: true }
    } satisfies Result
  }).pipe(Effect.provide(Accounts.Default))
