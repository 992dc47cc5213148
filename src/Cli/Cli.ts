import { Command, HelpDoc, ValidationError } from "@effect/cli"
import { Cause, ConfigError, Console, Effect, Exit, type Layer, Option } from "effect"
import packageJson from "../../package.json" with { type: "json" }
import { OutputConfig } from "../Config.js"
import { LogsTo } from "../Logging.js"
import type { Database } from "../Sql/Database.js"
import { accountCommand } from "./Accounts.js"
import { articleCommand } from "./Article.js"
import { auditCommand } from "./Audit.js"
import { backlinksCommand } from "./Backlinks.js"
import { UsageError } from "./CliError.js"
import { helpConsole, oneLine, stripAnsi } from "./HelpConsole.js"
import { importCommand } from "./Import.js"
import { keyCommand } from "./Keys.js"
import { migrateCommand } from "./Migrate.js"
import { seedCommand } from "./Seed.js"
import { serveCommand } from "./Serve.js"
import { webhookCommand } from "./Webhooks.js"

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
    Effect.fail(new UsageError({ message: "no command given: `cbs --help` lists the commands" }))
  )
  return root.pipe(
    Command.withDescription("Operate the content and backlink service."),
    Command.withSubcommands([
      withDatabase(serveCommand, "serve"),
      withDatabase(migrateCommand, "migrate"),
      withDatabase(accountCommand, "account"),
      withDatabase(keyCommand, "key"),
      withDatabase(webhookCommand, "webhook"),
      withDatabase(backlinksCommand, "backlinks"),
      withDatabase(importCommand, "import"),
      withDatabase(seedCommand, "seed"),
      withDatabase(auditCommand, "audit"),
      withDatabase(articleCommand, "article")
    ])
  )
}

const messageOf = (error: unknown): string =>
  // A ConfigError's message leaves out which variable it is about; its string form names it.
  ConfigError.isConfigError(error)
    ? String(error).replace(/^\((.*)\)$/s, "$1")
    : ValidationError.isValidationError(error)
      ? stripAnsi(HelpDoc.toAnsiText(error.error))
      : typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
        ? error.message
        : String(error)

/**
 * Reports why a command failed, as one line on stderr that starts with `cbs:`: a user's mistake or a failure with
 * its message, a defect (a bug) with its message and, in the log, its full cause.
 */
const report = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  return Option.match(Cause.failureOption(cause), {
    onSome: (error) => Console.error(`cbs: ${oneLine(messageOf(error))}`),
    onNone: () => {
      const squashed = Cause.squash(cause)
      const message = squashed instanceof Error ? squashed.message : String(squashed)
      return Effect.logError("cbs failed", cause).pipe(
        Effect.zipRight(Console.error(`cbs: unexpected failure: ${oneLine(message)}`))
      )
    }
  })
}

const isUsageMistake = (error: unknown) => ValidationError.isValidationError(error) || error instanceof UsageError

/**
 * The exit status: 0 done, 1 failed, 2 used wrongly (a usage error), 130 stopped by Ctrl-C (SIGINT). A server
 * stopped by SIGTERM, the way a service manager stops it, has ended normally (0); another command, 143.
 */
export const exitCode = (exit: Exit.Exit<unknown, unknown>, signal: NodeJS.Signals | undefined, command?: string) => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.isInterruptedOnly(exit.cause)) {
    return signal === "SIGINT" ? 130 : signal === "SIGTERM" && command !== "serve" ? 143 : 0
  }
  return Option.exists(Cause.failureOption(exit.cause), isUsageMistake) ? 2 : 1
}

/**
 * `cbs import - --json`: @effect/cli takes a lone `-` for the start of an option and stops reading there, but reads
 * it as the FILE argument after the options. `import` has no option that takes a value, so it can be moved there.
 */
const standardInputLast = (argv: ReadonlyArray<string>) =>
  argv[2] === "import" && argv.includes("-") ? [...argv.filter((arg) => arg !== "-"), "-"] : argv

/**
 * Runs `cbs` on `argv` (laid out as `process.argv`: runtime, script, then the arguments). Fails when the command
 * does, after reporting it; `exitCode` turns that into the exit status. While @effect/cli reads the arguments, it
 * prints through `helpConsole` (usage lines as `cbs …`, no colour off a terminal or with NO_COLOR, its own error
 * messages held back for `report`); the commands print through the console as it is.
 */
export const runCbs = <E, R>(argv: ReadonlyArray<string>, database: DatabaseFor<E, R>) =>
  Effect.gen(function* () {
    const output = yield* OutputConfig
    const console = yield* Effect.console
    const color = !output.noColor && process.stdout.isTTY === true
    const cbs = Command.transformHandler(makeCbs(database), (handler) => Effect.withConsole(handler, console))
    yield* Command.run(cbs, { name: "cbs", version: packageJson.version })(standardInputLast(argv)).pipe(
      Effect.withConsole(helpConsole(console, { color, argv }))
    )
  }).pipe(Effect.tapErrorCause(report), Effect.provide(LogsTo("stderr")))
