import { Command } from "@effect/cli"
import { Effect } from "effect"
import { jsonOption, load, printResult } from "./Output.js"

const prune = Command.make("prune", { json: jsonOption }, (args) =>
  load(() => import("./Run/Audit.js")).pipe(
    Effect.flatMap((run) => run.auditPrune),
    printResult(args.json)
  )
).pipe(
  Command.withDescription(
    "Drop the call log's days older than AUDIT_RETENTION_DAYS (a running server also does hourly), and delete ended request-limit windows and expired idempotency keys."
  )
)

export const auditCommand = Command.make("audit").pipe(
  Command.withDescription("Maintain the call log."),
  Command.withSubcommands([prune])
)
