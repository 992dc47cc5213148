import type { BacklinkStatus } from "./Backlink.js"
import type { BacklinkId } from "./Ids.js"
import type { CheckOutcome, LinkRel, LostReason } from "./LinkCheck.js"

/** A check as it is stored (times as epoch milliseconds). */
export interface StoredCheck {
  readonly backlink: BacklinkId
  readonly at: number
  readonly outcome: CheckOutcome
  readonly fetched: boolean
  readonly http_status: number | null
  readonly final_url: string | null
  readonly not_modified: boolean
  readonly rel: ReadonlyArray<LinkRel>
  readonly anchor_text: string | null
  readonly indexable: boolean | null
  readonly duration_ms: number
  readonly error: string | null
}

/** A backlink's health and schedule after a check. */
export interface StoredHealth {
  readonly status: typeof BacklinkStatus.Type
  readonly lost_reason: LostReason | null
  readonly indexable: boolean | null
  /** The link's rel as last found: unchanged (null) when this check did not find it. */
  readonly rel: ReadonlyArray<LinkRel> | null
  /** Null: never checked on a schedule (the demo's backlinks, whose pages cannot be fetched). */
  readonly next_check_at: number | null
  /** The validators to send next time; unchanged (undefined) when the check had no page answer to take them from. */
  readonly validators: { readonly etag: string | null; readonly last_modified: string | null } | undefined
}
