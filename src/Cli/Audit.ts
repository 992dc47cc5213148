import { Command } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"

const prune = Command.make(
  "prune",
  { json: jsonOption },
  loadAndPrint(
    () => import("./Run/Audit.js"),
    (run) => run.auditPrune
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
