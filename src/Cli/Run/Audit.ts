import { Effect } from "effect"
import { AuditLog, unpartitionedLine } from "../../Audit/AuditLog.js"
import { Idempotency } from "../../Idempotency/Idempotency.js"
import { Limits } from "../../Limits/Limits.js"
import type { Result } from "../Output.js"

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export const auditPrune = Effect.gen(function* () {
  const audit = yield* AuditLog
  const limits = yield* Limits
  const idempotency = yield* Idempotency
  const done = yield* audit.maintain
  yield* limits.pruneRequestCounters
  yield* idempotency.prune
  return {
    text: [
      ...(done.unpartitioned.length === 0 ? [] : [`Warning: ${unpartitionedLine(done.unpartitioned)}`]),
      `Dropped ${plural(done.dropped.length, "day")} of calls before ${done.firstKept} and deleted ${plural(done.deleted, "call")} older than ${audit.retentionDays} days (AUDIT_RETENTION_DAYS).`
    ],
    json: {
      dropped_days: done.dropped,
      deleted_calls: done.deleted,
      first_kept_day: done.firstKept,
      retention_days: audit.retentionDays,
      added_days: done.added,
      unpartitioned_calls: done.unpartitioned
    }
  } satisfies Result
}).pipe(Effect.provide([AuditLog.Default, Limits.Default, Idempotency.Default]))
