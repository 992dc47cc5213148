import { commandGroup, commandsIn } from "./Commands.js"

const prune = commandsIn(() => import("./Run/Audit.js"))(
  "prune",
  "Drop the call log's days older than AUDIT_RETENTION_DAYS (a running server also does hourly), and delete ended request-limit windows and expired idempotency keys.",
  {},
  (run) => run.auditPrune
)

export const auditCommand = commandGroup("audit", "Maintain the call log.", [prune])
