import { Schema } from "effect"
import { redirectedAway } from "./LinkTargets.js"

/** The reasons a backlink is lost (CONTRACT "Link health"). */
export const LostReason = Schema.Literal(
  "page_not_found",
  "link_removed",
  "redirected_away",
  "unreachable"
).annotations({
  description:
    "Why a lost backlink is lost: page_not_found (the page answers 404 or 410), link_removed (the page answers without the link), redirected_away (the page redirects to one without the link) or unreachable (DNS failure, refused connection, timeout, 5xx)."
})
export type LostReason = typeof LostReason.Type

export const CheckOutcome = Schema.Literal("found", ...LostReason.literals).annotations({
  description: "What one check saw: found (the link is on the page), or the reason it would make the backlink lost."
})
export type CheckOutcome = typeof CheckOutcome.Type

/** The `rel` values of a link that tell search engines how to weigh it, in this order. */
export const LinkRel = Schema.Literal("nofollow", "sponsored", "ugc").annotations({
  description: "A rel value of the link that tells search engines how to weigh it: nofollow, sponsored or ugc."
})
export type LinkRel = typeof LinkRel.Type

/** What fetching a backlink's page gave. */
export type PageFetch =
  /** No answer: DNS failure, refused or reset connection, timeout, TLS failure, too many redirects, a refused address. */
  | { readonly _tag: "NoAnswer" }
  | {
      readonly _tag: "Answered"
      /** The final answer's HTTP status (after redirects). */
      readonly status: number
      /** The address fetched (the backlink's `source_url`) and the one the redirects ended on. */
      readonly sourceUrl: string
      readonly finalUrl: string
      /** Whether the answer's body has the link (for a 304, whether the check that sent the validators found it). */
      readonly found: boolean
    }

const isSuccess = (status: number) => (status >= 200 && status < 300) || status === 304

/**
 * The outcome of one check. A 404 or 410 is `page_not_found`, even on a page that happens to have the link. A
 * success (2xx, or 304 for a conditional request: the page is as last seen) is `found` when the link is there, else
 * `redirected_away` when the redirects ended on another page (an upgrade from http to https is the same page; see
 * `redirectedAway`) and `link_removed` when they did not. No answer, a 5xx, and any other status (401, 403, 429, …:
 * the page could not be read, which says nothing about the link) are `unreachable`.
 */
export const outcomeOf = (fetch: PageFetch): CheckOutcome => {
  if (fetch._tag === "NoAnswer") return "unreachable"
  if (fetch.status === 404 || fetch.status === 410) return "page_not_found"
  if (!isSuccess(fetch.status)) return "unreachable"
  if (fetch.found) return "found"
  return redirectedAway(fetch.sourceUrl, fetch.finalUrl) ? "redirected_away" : "link_removed"
}
