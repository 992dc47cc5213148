import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCbs } from "./Cli/Cli.js"
import { DatabaseLive } from "./Database.js"

// Failures are reported by the command itself (one line for a user's mistake); runMain only sets the exit code.
runCbs(process.argv, DatabaseLive).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
