import { type Console, Effect, Exit, Layer } from "effect"
import { exitCode, runCbs } from "../../src/Cli/Cli.js"
import { stdinOf } from "../../src/Cli/Stdin.js"
import type { Database } from "../../src/Database.js"

/** Runs `cbs …args` in-process on the test file's database, with `stdin` as standard input; what it printed and how it ended. */
export const cbsWithInput = (stdin: string, ...args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const database = Layer.succeedContext(yield* Effect.context<Database>())
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const base = yield* Effect.console
    const capture: Console.Console = {
      ...base,
      log: (...parts) => Effect.sync(() => void stdout.push(parts.join(" "))),
      error: (...parts) => Effect.sync(() => void stderr.push(parts.join(" ")))
    }
    const exit = yield* runCbs(["node", "cbs", ...args], () => database).pipe(
      Effect.provide(stdinOf(stdin)),
      Effect.withConsole(capture),
      Effect.exit
    )
    return {
      ok: Exit.isSuccess(exit),
      code: exitCode(exit, undefined, args[0]),
      stdout: stdout.join("\n"),
      stderr: stderr.join("\n")
    }
  })

/** Runs `cbs …args` in-process on the test file's database; what it printed and how it ended. */
export const cbs = (...args: ReadonlyArray<string>) => cbsWithInput("", ...args)
