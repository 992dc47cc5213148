import { Effect } from "effect"
import { AuditLog } from "../../Audit.js"
import { Idempotency } from "../../Idempotency.js"
import { Limits } from "../../Limits.js"
import type { Result } from "../Output.js"

export const auditPrune = Effect.gen(function* () {
  const audit = yield* AuditLog
  const limits = yield* Limits
  const idempotency = yield* Idempotency
  const deleted = yield* audit.prune
  yield* limits.pruneRequestCounters
  yield* idempotency.prune
  return {
    text: [
      `Deleted ${deleted} call${deleted === 1 ? "" : "s"} older than ${audit.retentionDays} days (AUDIT_RETENTION_DAYS).`
    ],
    json: { deleted_calls: deleted, retention_days: audit.retentionDays }
  } satisfies Result
}).pipe(Effect.provide([AuditLog.Default, Limits.Default, Idempotency.Default]))
