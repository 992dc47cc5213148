import { type Console, Effect, Exit, Layer } from "effect"
import { runCbs } from "../../src/Cli/Cli.js"
import type { Database } from "../../src/Database.js"

/** Runs `cbs …args` in-process on the test file's database; what it printed and how it ended. */
export const cbs = (...args: ReadonlyArray<string>) =>
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
    const exit = yield* runCbs(["node", "cbs", ...args], () => database).pipe(Effect.withConsole(capture), Effect.exit)
    return { ok: Exit.isSuccess(exit), stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  })
