import { Schema, Struct } from "effect"
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

/**
 * An article's content: what a change writes, a revision keeps and a restore brings back. Every list of these fields
 * is derived from this one declaration (the read model, the SQL column lists, the revision snapshot, equality and a
 * preview's flags), so a field cannot be writable without being readable, or change without a revision. Adding one is
 * a migration, a field here and a payload field (docs/development.md).
 */
export const ArticleContent = Schema.Struct({
  title: Schema.NullOr(Schema.String).annotations({ description: "Title." }),
  body: Schema.String.annotations({
    description:
      "The HTML body in canonical form (as the sanitiser serialises it); a `find` copied from it matches exactly."
  }),
  meta_description: Schema.NullOr(Schema.String).annotations({
    description: "Meta description (shown by search engines); null when none was set."
  }),
  featured_image_url: Schema.NullOr(Schema.String).annotations({ description: "Featured image address." })
})
export type ArticleContent = typeof ArticleContent.Type
export type ContentField = keyof ArticleContent

/** The names of the content fields, which are also their columns in `articles` and `article_revisions`. */
export const contentFields = Object.keys(ArticleContent.fields) as ReadonlyArray<ContentField>

/** Whether two articles (or revisions) have the same content, field by field. */
export const sameContent: (a: ArticleContent, b: ArticleContent) => boolean = Schema.equivalence(ArticleContent)

/** The content fields of `source` alone (a row, a revision). */
export const contentOf = (source: ArticleContent): ArticleContent => Struct.pick(source, ...contentFields)

export const articleFields = {
  id: ArticleId.annotations({ description: "Article id." }),
  site_id: SiteId.annotations({ description: "Id of the website the article belongs to." }),
  title: ArticleContent.fields.title,
  url: Schema.NullOr(Schema.String).annotations({ description: "Public address of the article." }),
  status: Schema.NullOr(ArticleStatus).annotations({
    description: "draft, scheduled or published; set by the publishing pipeline, never by the interface."
  }),
  published_at: Schema.NullOr(Timestamp).annotations({ description: "Publication time, RFC 3339 UTC." }),
  target_keyword: Schema.NullOr(Schema.String).annotations({ description: "The search term the article targets." }),
  word_count: Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.nonNegative())).annotations({
    description: "Words in the body's text, recomputed on every change."
  }),
  featured_image_url: ArticleContent.fields.featured_image_url,
  revision: Schema.Number.pipe(Schema.int(), Schema.nonNegative()).annotations({
    description:
      "The article's current revision number (0 before its first change). Send it back as If-Match to change only this version."
  })
}

// A plain struct rather than a class: lists carry up to 100 of them, and decoding a database row into a struct (and
// encoding it for the response) costs a fraction of constructing and taking apart a class instance.
export const Article = Schema.Struct(articleFields).annotations({ identifier: "Article", description: "An article." })
export type Article = typeof Article.Type

/** An article of a list: with `q`, the excerpt of its text around the first hit. */
export const ListedArticle = Schema.Struct({
  ...articleFields,
  match: Schema.optional(Schema.String).annotations({
    description:
      "Only when the list was searched (q): a plain-text excerpt of the title, target keyword or body text around the first hit, at most 200 characters."
  })
}).annotations({ identifier: "ListedArticle", description: "An article of a list." })
export type ListedArticle = typeof ListedArticle.Type

export class ArticleWithBody extends Schema.Class<ArticleWithBody>("ArticleWithBody")(
  {
    ...articleFields,
    // Spread after the list's fields, the content adds those the list leaves out (body, meta_description, ...).
    ...ArticleContent.fields,
    protected_links: Schema.Array(ProtectedLink).annotations({
      description: "The protected links found in the body, in document order."
    })
  },
  { description: "An article with its HTML body and protected links." }
) {}
