import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { CheckOutcome, LinkRel, LostReason } from "../../src/Domain/LinkCheck.js"

/**
 * A backlink's health as the link checker leaves it, written straight into its row (the checker itself runs in the
 * background only when workers run). The day counts follow the status through their trigger.
 */
export const setHealth = (
  backlinkId: number,
  health: {
    readonly status: "pending" | "live" | "lost"
    readonly lost_reason?: LostReason | null
    readonly rel?: ReadonlyArray<LinkRel>
    readonly indexable?: boolean | null
    readonly last_checked_at?: string | null
  }
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`update backlinks set status = ${health.status}, lost_reason = ${health.lost_reason ?? null},
        rel = ${`{${(health.rel ?? []).join(",")}}`}::text[], indexable = ${health.indexable ?? null},
        last_checked_at = ${health.last_checked_at ?? null}
      where id = ${backlinkId}`
  ).pipe(Effect.orDie)

export interface CheckRow {
  readonly checked_at: string
  readonly outcome: CheckOutcome
  readonly fetched?: boolean
  readonly http_status?: number | null
  readonly final_url?: string | null
  readonly not_modified?: boolean
  readonly rel?: ReadonlyArray<LinkRel>
  readonly anchor_text?: string | null
  readonly indexable?: boolean | null
  readonly duration_ms?: number
  readonly error?: string | null
}

/** One check of the backlink, as the checker records it. */
export const insertCheck = (backlinkId: number, check: CheckRow) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`insert into backlink_checks (backlink_id, checked_at, outcome, fetched, http_status, final_url, not_modified,
        rel, anchor_text, indexable, duration_ms, error)
      values (${backlinkId}, ${check.checked_at}, ${check.outcome}, ${check.fetched ?? true},
        ${check.http_status ?? null}, ${check.final_url ?? null}, ${check.not_modified ?? false},
        ${`{${(check.rel ?? []).join(",")}}`}::text[], ${check.anchor_text ?? null}, ${check.indexable ?? null},
        ${check.duration_ms ?? 120}, ${check.error ?? null})`
  ).pipe(Effect.orDie)
