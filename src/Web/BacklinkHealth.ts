import type { Backlink, BacklinkStatus } from "../Domain/Backlink.js"
import type { CheckOutcome, LinkRel } from "../Domain/LinkCheck.js"
import { html, SafeHtml } from "../Ui/Html.js"
import { none, timestamp } from "./Layout.js"

/** The backlink statuses in the order the pages offer them. */
export const BACKLINK_STATUSES: ReadonlyArray<BacklinkStatus> = ["live", "lost", "pending"]

export const statusNames: Record<BacklinkStatus, string> = { live: "Live", lost: "Lost", pending: "Pending" }

/**
 * A shape beside each status's word, so that the badge is told apart without its colour: a tick for live, a cross for
 * lost, a clock for pending. Drawn in the text's colour, hidden from screen readers (the word says it).
 */
const shapes: Record<BacklinkStatus | "unknown", string> = {
  live: '<path d="M3 8.5l3.2 3.2L13 5"/>',
  lost: '<path d="M4 4l8 8M12 4l-8 8"/>',
  pending: '<circle cx="8" cy="8" r="5.5"/><path d="M8 5v3.2l2.2 1.4"/>',
  unknown: '<circle cx="8" cy="8" r="5.5"/>'
}

const icon = (shape: keyof typeof shapes) =>
  new SafeHtml(
    `<svg class="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${shapes[shape]}</svg>`
  )

/** A backlink's status as a badge: its icon and its word. A backlink without a status says "Unknown". */
export const healthBadge = (status: Backlink["status"]) =>
  status === null
    ? html`<span class="badge health">${icon("unknown")}Unknown</span>`
    : html`<span class="badge health ${status}">${icon(status)}${statusNames[status]}</span>`

/** What each check outcome (and so each lost reason) means, in words. */
export const outcomeNames: Record<CheckOutcome, string> = {
  found: "Link found",
  page_not_found: "Page not found (404/410)",
  link_removed: "Link removed from the page",
  redirected_away: "Page redirects elsewhere",
  unreachable: "Unreachable"
}

/** A check's outcome as a badge: found is live's, every other outcome lost's (one alone need not make it lost). */
export const outcomeBadge = (outcome: CheckOutcome) =>
  outcome === "found"
    ? html`<span class="badge health live">${icon("live")}${outcomeNames.found}</span>`
    : html`<span class="badge health lost">${icon("lost")}${outcomeNames[outcome]}</span>`

/** The `rel` values of a link as small tags; nothing when it has none. */
export const relTags = (rel: ReadonlyArray<LinkRel>) => rel.map((value) => html`<span class="tag">${value}</span>`)

/**
 * What a backlink's checks found besides its status: why it is lost, its `rel` values, and "not indexable" when its
 * page says noindex; a dash when there is nothing to say.
 */
export const healthNotes = (link: Pick<Backlink, "lost_reason" | "rel" | "indexable">) => {
  const notes = [
    link.lost_reason === null ? null : html`<span class="reason">${outcomeNames[link.lost_reason]}</span>`,
    ...relTags(link.rel),
    link.indexable === false ? html`<span class="tag warn">not indexable</span>` : null
  ].filter((note): note is SafeHtml => note !== null)
  return notes.length === 0 ? none : html`<span class="health-notes">${notes}</span>`
}

/** When the backlink was last checked, or that it has not been yet. */
export const lastChecked = (at: string | null) => (at === null ? html`Not checked yet` : timestamp(at))
