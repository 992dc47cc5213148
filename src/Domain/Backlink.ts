import { Schema } from "effect"
import { Timestamp } from "./Dates.js"
import { BacklinkId } from "./Ids.js"

export const BacklinkStatus = Schema.Literal("pending", "live", "lost")
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
    category: BacklinkCategory.annotations({ description: "industry or local." })
  },
  { description: "A backlink acquired for a website." }
) {}
