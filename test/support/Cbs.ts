import { type Console, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { exitCode, runCbs } from "../../src/Cli/Cli.js"
import { stdinOf } from "../../src/Cli/Stdin.js"
import type { Database } from "../../src/Sql/Database.js"

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

/**
 * Runs `cbs …args` in-process on the test file's database, and stops it as Ctrl-C does (its fiber interrupted; the
 * exit status that of SIGINT) at the first line it writes to stderr that matches `at`. The command is held at that
 * line until it is stopped, so it is stopped exactly there, however fast it runs. One that ends before writing such a
 * line is reported with `reached: false`.
 */
export const cbsStoppedAt = (at: RegExp, ...args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const database = Layer.succeedContext(yield* Effect.context<Database>())
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const reached = yield* Deferred.make<void>()
    const base = yield* Effect.console
    const capture: Console.Console = {
      ...base,
      log: (...parts) => Effect.sync(() => void stdout.push(parts.join(" "))),
      error: (...parts) =>
        Effect.gen(function* () {
          const line = parts.join(" ")
          stderr.push(line)
          if (at.test(line) && (yield* Deferred.succeed(reached, undefined))) yield* Effect.never
        })
    }
    const running = yield* runCbs(["node", "cbs", ...args], () => database).pipe(
      Effect.provide(stdinOf("")),
      Effect.withConsole(capture),
      Effect.fork
    )
    yield* Effect.raceFirst(Deferred.await(reached), Effect.asVoid(Fiber.await(running)))
    const exit = yield* Fiber.interrupt(running)
    return {
      reached: yield* Deferred.isDone(reached),
      code: exitCode(exit, "SIGINT", args[0]),
      stdout: stdout.join("\n"),
      stderr: stderr.join("\n")
    }
  })
