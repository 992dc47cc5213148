import { Command, ValidationError } from "@effect/cli"
import { Cause, ConfigError, Console, Effect, type Layer, Option } from "effect"
import packageJson from "../../package.json" with { type: "json" }
import type { Database } from "../Database.js"
import { accountCommand } from "./Accounts.js"
import { articleCommand } from "./Article.js"
import { auditCommand } from "./Audit.js"
import { CliError } from "./CliError.js"
import { importCommand } from "./Import.js"
import { keyCommand } from "./Keys.js"
import { migrateCommand } from "./Migrate.js"
import { seedCommand } from "./Seed.js"
import { serveCommand } from "./Serve.js"

/** The database for the command named (`serve`, `key`, …): a command holding it is named to one that finds it busy. */
export type DatabaseFor<E, R> = (command: string) => Layer.Layer<Database, E, R>

/**
 * The `cbs` command. `database` is provided to each command that runs, not to the whole program, so that
 * `cbs --help` or a mistyped option never opens (or creates) a database.
 */
export const makeCbs = <E, R>(database: DatabaseFor<E, R>) => {
  const withDatabase = <Name extends string, R2, E2, A>(command: Command.Command<Name, R2, E2, A>, name: Name) =>
    Command.provide(command, database(name))
  const root = Command.make("cbs", {}, () =>
    Effect.fail(new CliError({ message: "no command given: `cbs --help` lists the commands" }))
  )
  return root.pipe(
    Command.withDescription("Operate the content and backlink service."),
    Command.withSubcommands([
      withDatabase(serveCommand, "serve"),
      withDatabase(migrateCommand, "migrate"),
      withDatabase(accountCommand, "account"),
      withDatabase(keyCommand, "key"),
      withDatabase(importCommand, "import"),
      withDatabase(seedCommand, "seed"),
      withDatabase(auditCommand, "audit"),
      withDatabase(articleCommand, "article")
    ])
  )
}

const oneLine = (error: unknown): string => {
  // A ConfigError's message leaves out which variable it is about; its string form names it.
  const text = ConfigError.isConfigError(error)
    ? String(error).replace(/^\((.*)\)$/s, "$1")
    : typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
      ? error.message
      : String(error)
  return text.replace(/\s*\n\s*/g, " ")
}

/**
 * Reports why a command failed: an expected failure as one line on stderr (no stack trace), a parse error not
 * at all (@effect/cli has printed it), a defect (a bug) with its full cause in the log.
 */
const report = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  return Option.match(Cause.failureOption(cause), {
    onSome: (error) =>
      ValidationError.isValidationError(error) ? Effect.void : Console.error(`cbs: ${oneLine(error)}`),
    onNone: () => Effect.logError("cbs failed", cause)
  })
}

/**
 * Runs `cbs` on `argv` (laid out as `process.argv`: runtime, script, then the arguments). Fails when the command
 * does, after reporting it; the caller turns that into the exit code.
 */
export const runCbs = <E, R>(argv: ReadonlyArray<string>, database: DatabaseFor<E, R>) =>
  Command.run(makeCbs(database), { name: "cbs", version: packageJson.version })(argv).pipe(Effect.tapErrorCause(report))
