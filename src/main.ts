import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Layer } from "effect"
import { exitCode, runCbs } from "./Cli/Cli.js"
import { StdinLive } from "./Cli/Stdin.js"

// Which signal stopped the program, for its exit status (130 after Ctrl-C); runMain interrupts on both.
let signal: NodeJS.Signals | undefined
for (const name of ["SIGINT", "SIGTERM"] as const) process.once(name, () => (signal ??= name))

// The database code (and PGlite) is loaded only by a command that uses it, not by `cbs --help`.
const database = (command: string) =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("./Sql/Database.js")),
      (module) => module.DatabaseLive(command, (line) => Console.error(line))
    )
  )

// Failures are reported by the command itself (one line); runMain only sets the exit status.
runCbs(process.argv, database).pipe(
  Effect.provide([NodeContext.layer, StdinLive]),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCode(exit, signal, process.argv[2]))
  })
)
