import { Schema } from "effect"
import { Timestamp } from "./Dates.js"
import { ArticleId, SiteId } from "./Ids.js"

export const ArticleStatus = Schema.Literal("draft", "scheduled", "published").annotations({
  description: "Set by the publishing pipeline: draft, scheduled or published."
})
export type ArticleStatus = typeof ArticleStatus.Type

export const ProtectedLinkType = Schema.Literal("backlink", "internal")

export const ProtectedLink = Schema.Struct({
  type: ProtectedLinkType.annotations({ description: "backlink or internal." }),
  href: Schema.String.annotations({ description: "The link's href, as in the body." }),
  text: Schema.String.annotations({ description: "The link's text." })
}).annotations({
  identifier: "ProtectedLink",
  description:
    'A link an edit must keep: <a data-service-protected="backlink|internal" href="…">text</a>, with the same href, text and attribute value (moving it is allowed).'
})
export type ProtectedLink = typeof ProtectedLink.Type

export const articleFields = {
  id: ArticleId.annotations({ description: "Article id." }),
  site_id: SiteId.annotations({ description: "Id of the website the article belongs to." }),
  title: Schema.NullOr(Schema.String).annotations({ description: "Title." }),
  url: Schema.NullOr(Schema.String).annotations({ description: "Public address of the article." }),
  status: Schema.NullOr(ArticleStatus).annotations({
    description: "draft, scheduled or published; set by the publishing pipeline, never by the interface."
  }),
  published_at: Schema.NullOr(Timestamp).annotations({ description: "Publication time, RFC 3339 UTC." }),
  target_keyword: Schema.NullOr(Schema.String).annotations({ description: "The search term the article targets." }),
  word_count: Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.nonNegative())).annotations({
    description: "Words in the body's text, recomputed on every change."
  }),
  featured_image_url: Schema.NullOr(Schema.String).annotations({ description: "Featured image address." }),
  revision: Schema.Number.pipe(Schema.int(), Schema.nonNegative()).annotations({
    description:
      "The article's current revision number (0 before its first change). Send it back as If-Match to change only this version."
  })
}

// A plain struct rather than a class: lists carry up to 100 of them, and decoding a database row into a struct (and
// encoding it for the response) costs a fraction of constructing and taking apart a class instance.
export const Article = Schema.Struct(articleFields).annotations({ identifier: "Article", description: "An article." })
export type Article = typeof Article.Type

export class ArticleWithBody extends Schema.Class<ArticleWithBody>("ArticleWithBody")(
  {
    ...articleFields,
    body: Schema.String.annotations({
      description:
        "The HTML body in canonical form (as the sanitiser serialises it); a `find` copied from it matches exactly."
    }),
    protected_links: Schema.Array(ProtectedLink).annotations({
      description: "The protected links found in the body, in document order."
    })
  },
  { description: "An article with its HTML body and protected links." }
) {}
