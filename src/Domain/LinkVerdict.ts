import type { BacklinkStatus } from "./Backlink.js"
import type { CheckOutcome, LostReason } from "./LinkCheck.js"

/**
 * What a backlink's checks mean (CONTRACT "Link health"): its status, why it is lost, whether the page can be
 * indexed, and when to check it next. Pure: times are epoch milliseconds, and the jitter comes from a random source
 * the caller passes in.
 */

/** One earlier check of the backlink. */
export interface PastCheck {
  readonly at: number
  readonly outcome: CheckOutcome
}

/** The new check: its outcome, and whether the page said `noindex` (meta robots or the X-Robots-Tag header). */
export interface NewCheck extends PastCheck {
  readonly metaNoindex: boolean
  readonly headerNoindex: boolean
}

/** The health fields of a backlink. */
export interface LinkHealth {
  readonly status: typeof BacklinkStatus.Type
  readonly lost_reason: LostReason | null
  /** Whether the page the link is on may be indexed; null while that is not known (never found, or lost). */
  readonly indexable: boolean | null
}

/** A backlink's health after a check, and when its next check is due. */
export interface Verdict extends LinkHealth {
  readonly next_check_at: number
  /** Whether `status` or `lost_reason` changed. */
  readonly changed: boolean
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** How often a backlink is checked in each status: these are the longest gaps between two checks. */
export const CHECK_INTERVALS_MS: Readonly<Record<LinkHealth["status"], number>> = {
  pending: DAY,
  live: 7 * DAY,
  lost: 14 * DAY
}

/** After a 404 or 410, the check that can confirm it (two at least an hour apart are needed). */
export const PAGE_NOT_FOUND_RETRY_MS = HOUR

/** After an unreachable page, the next check: three checks 12 hours apart span the 24 hours needed. */
export const UNREACHABLE_RETRY_MS = 12 * HOUR

/** The confirmation rules: a 404 or 410 seen twice this far apart, a failure seen this many times over this long. */
export const PAGE_NOT_FOUND_CONFIRMED_AFTER_MS = HOUR
export const UNREACHABLE_CONFIRMATIONS = 3
export const UNREACHABLE_CONFIRMED_AFTER_MS = DAY

/** The share of an interval by which a check is spread out in time. */
export const JITTER = 0.1

/** A page that failed to answer: its checks count towards `unreachable` (and 404s towards `page_not_found`). */
const isFailedFetch = (outcome: CheckOutcome) => outcome === "unreachable" || outcome === "page_not_found"

/** The value of `random()`, kept within [0, 1) whatever the source gives. */
const unit = (random: () => number): number => Math.min(Math.max(random(), 0), 1 - Number.EPSILON)

/**
 * When a backlink in `status` checked at `at` is next due on the regular schedule: daily when pending, within 7 days
 * when live, within 14 days when lost, brought forward by up to `JITTER` of the interval so that checks spread out.
 */
export const regularCheckAt = (status: LinkHealth["status"], at: number, random: () => number): number =>
  at + Math.round(CHECK_INTERVALS_MS[status] * (1 - JITTER * unit(random)))

/** A retry after `delay`, put back by up to `JITTER` of it: the confirmation rules need at least that much time. */
const retryAt = (delay: number, at: number, random: () => number): number =>
  at + Math.round(delay * (1 + JITTER * unit(random)))

/**
 * The failed fetches since the link was last found (or since the recorded history begins), oldest first, with the
 * new one last.
 */
const failedFetchesSinceFound = (history: ReadonlyArray<PastCheck>, check: NewCheck): ReadonlyArray<PastCheck> => {
  const earlier = history.filter((past) => past.at < check.at).sort((a, b) => a.at - b.at)
  const lastFound = earlier.findLastIndex((past) => past.outcome === "found")
  return [...earlier.slice(lastFound + 1), check].filter((past) => isFailedFetch(past.outcome))
}

/** Whether the failure `check` reports is confirmed by the checks before it, so that the backlink is lost. */
const confirmed = (history: ReadonlyArray<PastCheck>, check: NewCheck): boolean => {
  if (check.outcome === "link_removed" || check.outcome === "redirected_away") return true
  const failures = failedFetchesSinceFound(history, check)
  if (check.outcome === "page_not_found") {
    return failures.some(
      (past) => past.outcome === "page_not_found" && check.at - past.at >= PAGE_NOT_FOUND_CONFIRMED_AFTER_MS
    )
  }
  return failures.length >= UNREACHABLE_CONFIRMATIONS && check.at - failures[0]!.at >= UNREACHABLE_CONFIRMED_AFTER_MS
}

/**
 * The backlink's health after the check `check`, given its health before and its earlier checks (`history`, in any
 * order; entries at or after `check.at` are ignored). The rules:
 * - The link found: `live` (a lost link found again is live again), indexable unless the page says `noindex`.
 * - The page answers without the link, or redirects to a page without it: `lost` at once (`link_removed`,
 *   `redirected_away`); the page answered, so there is nothing to confirm.
 * - A failed fetch is never enough on its own. A 404 or 410 makes the link lost (`page_not_found`) once an earlier
 *   404 or 410 since the link was last found is at least an hour older; a failure (unreachable, or a 404) makes it
 *   lost (`unreachable`) once it is the third since the link was last found and the first of them is at least 24
 *   hours older. Until then the backlink keeps its status, reason and indexability, and is checked again within
 *   hours: an hour after a 404, 12 hours after an unreachable page (a lost link keeps its 14-day schedule: its
 *   reason changes only when a failure is confirmed the same way).
 * - The next check: on the regular schedule (`regularCheckAt`) except for those retries, which the jitter only
 *   ever delays (by up to `JITTER`), so that confirming checks are always far enough apart.
 */
export const linkVerdict = (
  current: LinkHealth,
  history: ReadonlyArray<PastCheck>,
  check: NewCheck,
  random: () => number
): Verdict => {
  const after = (health: LinkHealth, next_check_at: number): Verdict => ({
    ...health,
    next_check_at,
    changed: health.status !== current.status || health.lost_reason !== current.lost_reason
  })
  if (check.outcome === "found") {
    const indexable = !(check.metaNoindex || check.headerNoindex)
    return after({ status: "live", lost_reason: null, indexable }, regularCheckAt("live", check.at, random))
  }
  if (confirmed(history, check)) {
    return after(
      { status: "lost", lost_reason: check.outcome, indexable: null },
      regularCheckAt("lost", check.at, random)
    )
  }
  if (current.status === "lost") return after(current, regularCheckAt("lost", check.at, random))
  const delay = check.outcome === "page_not_found" ? PAGE_NOT_FOUND_RETRY_MS : UNREACHABLE_RETRY_MS
  return after(current, retryAt(delay, check.at, random))
}
