import { Schema } from "effect"
import { SiteId } from "./Ids.js"

export const GeographicScope = Schema.Literal("local", "regional", "national", "international").annotations({
  description: "How far the website's audience reaches."
})

export class Site extends Schema.Class<Site>("Site")(
  {
    id: SiteId.annotations({ description: "Website id." }),
    name: Schema.NullOr(Schema.String).annotations({ description: "Website name." }),
    website_url: Schema.NullOr(Schema.String).annotations({ description: "Website address." }),
    language: Schema.NullOr(Schema.String).annotations({ description: "BCP 47 language tag, e.g. en, en-GB, de." }),
    country: Schema.NullOr(Schema.String).annotations({ description: "ISO 3166-1 alpha-2 country code, e.g. GB." }),
    geographic_scope: Schema.NullOr(GeographicScope).annotations({
      description: "One of local, regional, national, international."
    }),
    industry: Schema.NullOr(Schema.String).annotations({ description: "Free-text industry label, e.g. Plumbing." })
  },
  { description: "A website on the account." }
) {}
