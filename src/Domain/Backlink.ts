import { Schema } from "effect"
import { Timestamp } from "./Dates.js"
import { BacklinkId, SiteId } from "./Ids.js"
import { CheckOutcome, LinkRel, LostReason } from "./LinkCheck.js"

export const BacklinkStatus = Schema.Literal("pending", "live", "lost")
export type BacklinkStatus = typeof BacklinkStatus.Type
export const AnchorType = Schema.Literal("exact_match", "partial_match", "branded", "naked_url", "generic")
export const BacklinkCategory = Schema.Literal("industry", "local")
export type BacklinkCategory = typeof BacklinkCategory.Type

export class Backlink extends Schema.Class<Backlink>("Backlink")(
  {
    id: BacklinkId.annotations({ description: "Backlink id." }),
    acquired_at: Schema.NullOr(Timestamp).annotations({ description: "When the backlink was acquired, RFC 3339 UTC." }),
    source_domain: Schema.NullOr(Schema.String).annotations({ description: "Domain of the linking page." }),
    source_url: Schema.NullOr(Schema.String).annotations({ description: "Address of the linking page." }),
    target_url: Schema.NullOr(Schema.String).annotations({ description: "Address the link points to." }),
    anchor_text: Schema.NullOr(Schema.String).annotations({ description: "The link's text." }),
    anchor_type: Schema.NullOr(AnchorType).annotations({
      description: "exact_match, partial_match, branded, naked_url or generic."
    }),
    status: Schema.NullOr(BacklinkStatus).annotations({ description: "pending, live or lost." }),
    category: BacklinkCategory.annotations({ description: "industry or local." }),
    last_checked_at: Schema.NullOr(Timestamp).annotations({
      description: "When the service last checked that the link stands, RFC 3339 UTC; null before the first check."
    }),
    lost_reason: Schema.NullOr(LostReason).annotations({
      description:
        "Why the backlink is lost: page_not_found, link_removed, redirected_away or unreachable; null when it is not lost."
    }),
    rel: Schema.Array(LinkRel).annotations({
      description: "The nofollow, sponsored and ugc values of the link as last found (empty: none, or never found)."
    }),
    indexable: Schema.NullOr(Schema.Boolean).annotations({
      description:
        "Whether the page the link is on may be indexed (no noindex in its meta robots or X-Robots-Tag); null while not known (never found, or lost)."
    })
  },
  { description: "A backlink acquired for a website." }
) {}

/** One check of a backlink: what the service saw when it looked for the link. */
export const BacklinkCheck = Schema.Struct({
  checked_at: Timestamp.annotations({ description: "When the check was made, RFC 3339 UTC." }),
  outcome: CheckOutcome,
  fetched: Schema.Boolean.annotations({
    description:
      "Whether the source page was fetched; false when the source is an article held by this service, judged from its stored body."
  }),
  http_status: Schema.NullOr(Schema.Int).annotations({
    description: "The status code the page answered with, after redirects; null when there was no answer or no fetch."
  }),
  final_url: Schema.NullOr(Schema.String).annotations({
    description: "The address the redirects ended on; null when there was no answer or no fetch."
  }),
  not_modified: Schema.Boolean.annotations({
    description: "Whether the host answered 304 to a conditional request: the page was as at the check before."
  }),
  rel: Schema.Array(LinkRel).annotations({ description: "The link's nofollow, sponsored and ugc values, if found." }),
  anchor_text: Schema.NullOr(Schema.String).annotations({
    description: "The link's text as found; null if not found."
  }),
  indexable: Schema.NullOr(Schema.Boolean).annotations({
    description: "Whether the page may be indexed, when the link was found; null otherwise."
  }),
  duration_ms: Schema.Int.annotations({ description: "How long the check took, in milliseconds." }),
  error: Schema.NullOr(Schema.String).annotations({
    description: "Why there was no answer (a timeout, a refused connection…), in words; null when there was one."
  })
}).annotations({ identifier: "BacklinkCheck", description: "One check of a backlink." })
export type BacklinkCheck = typeof BacklinkCheck.Type

/** How many of a backlink's checks `GET /backlinks/{id}` shows, newest first. */
export const SHOWN_CHECKS = 20

export class BacklinkWithChecks extends Schema.Class<BacklinkWithChecks>("BacklinkWithChecks")(
  {
    ...Backlink.fields,
    site_id: SiteId.annotations({ description: "Id of the website the backlink was acquired for." }),
    checks: Schema.Array(BacklinkCheck).annotations({
      description: `The backlink's last ${SHOWN_CHECKS} checks, newest first (checks are kept 90 days).`
    })
  },
  { description: "A backlink with its last checks." }
) {}
