import { Clock, Effect } from "effect"
import { type AuditEntry, AuditRepo } from "./Audit/Repo.js"
import { AppConfig } from "./Config.js"

/** The call log: every API and MCP call, with who made it, what it touched and how it ended. */
export class AuditLog extends Effect.Service<AuditLog>()("AuditLog", {
  dependencies: [AuditRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AuditRepo
    const config = yield* AppConfig

    /**
     * Records one call. A failure to record is logged loudly and swallowed: it must never turn an answered
     * request (a saved edit, say) into an error.
     */
    const record = (entry: AuditEntry) =>
      repo
        .insert(entry)
        .pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("Audit log write failed; the call was not recorded", cause).pipe(
              Effect.annotateLogs({ audit_entry: JSON.stringify(entry) })
            )
          )
        )

    /** Deletes calls older than the retention period; returns how many. */
    const prune = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const before = new Date(now - config.auditRetentionDays * 86_400_000).toISOString()
      return yield* repo.pruneBefore(before)
    })

    return {
      record,
      prune,
      activityOfArticle: repo.activityOfArticle,
      activityOfAccount: repo.activityOfAccount,
      retentionDays: config.auditRetentionDays
    }
  })
}) {}
