import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { AuditLog } from "../Audit.js"
import { Idempotency } from "../Idempotency.js"
import { Limits } from "../Limits.js"

const prune = Command.make("prune", {}, () =>
  Effect.gen(function* () {
    const audit = yield* AuditLog
    const limits = yield* Limits
    const idempotency = yield* Idempotency
    const deleted = yield* audit.prune
    yield* limits.pruneRequestCounters
    yield* idempotency.prune
    yield* Console.log(
      `Deleted ${deleted} call${deleted === 1 ? "" : "s"} older than ${audit.retentionDays} days (AUDIT_RETENTION_DAYS).`
    )
  }).pipe(Effect.provide([AuditLog.Default, Limits.Default, Idempotency.Default]))
).pipe(
  Command.withDescription(
    "Delete call-log entries older than AUDIT_RETENTION_DAYS, ended request-limit windows and expired idempotency keys."
  )
)

export const auditCommand = Command.make("audit").pipe(
  Command.withDescription("Maintain the call log."),
  Command.withSubcommands([prune])
)
