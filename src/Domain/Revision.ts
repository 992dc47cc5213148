import { Schema } from "effect"
import { ArticleContent } from "./Article.js"
import { RevisionOrigin } from "./Credential.js"
import { Timestamp } from "./Dates.js"
import { ArticleId } from "./Ids.js"

/** A revision as a change stores it: a full snapshot of the article, with where it came from and who made it. */
export const NewRevision = Schema.Struct({
  article_id: ArticleId,
  number: Schema.Number,
  origin: RevisionOrigin,
  reason: Schema.NullOr(Schema.String),
  api_key_id: Schema.NullOr(Schema.Number),
  user_id: Schema.NullOr(Schema.Number),
  /** The assistant (OAuth client) the user's token was granted to, for a change made through MCP. */
  oauth_client_id: Schema.NullOr(Schema.String),
  /** The snapshot: the article's whole content, in columns of the same names. */
  ...ArticleContent.fields
})

/** A stored revision, with when it was made. */
export class RevisionRow extends Schema.Class<RevisionRow>("RevisionRow")({
  ...NewRevision.fields,
  created_at: Schema.String
}) {}

/** A revision's number: 1, 2, 3… per article. */
export const RevisionNumber = Schema.Number.pipe(Schema.int(), Schema.positive())

/** The name of a content field (`title`, `body`, …), as `changed` lists them. */
export const ContentFieldName = Schema.keyof(ArticleContent)

/** A revision as the API lists it: what it is, where it came from, who made it and what it changed. */
export const RevisionSummary = Schema.Struct({
  number: RevisionNumber.annotations({ description: "Revision number: 1, 2, 3… per article." }),
  origin: RevisionOrigin.annotations({
    description: "Where the change came from: API, MCP (an assistant), editor, or rewrite (an import or rewrite)."
  }),
  reason: Schema.NullOr(Schema.String).annotations({ description: "The reason given with the change, if any." }),
  created_at: Timestamp.annotations({ description: "When the change was saved, RFC 3339 UTC." }),
  actor: Schema.NullOr(Schema.String).annotations({
    description:
      "Who made it: the API key's name, the assistant's name (MCP) or the person's e-mail; null for an import or rewrite."
  }),
  changed: Schema.Array(ContentFieldName).annotations({
    description: "The content fields that differ from the revision before (for revision 1: those that have a value)."
  })
}).annotations({ identifier: "RevisionSummary", description: "One revision of an article, without its content." })
export type RevisionSummary = typeof RevisionSummary.Type

/** One revision with its snapshot and the diff of its body against the revision before. */
export const RevisionDetail = Schema.Struct({
  ...RevisionSummary.fields,
  ...ArticleContent.fields,
  diff: Schema.String.annotations({
    description:
      "Unified diff of the canonical body, from the revision before to this one (revision 1: from an empty body); empty when the body stayed."
  })
}).annotations({
  identifier: "Revision",
  description: "One revision of an article: the content it saved (a full snapshot) and what it changed."
})
export type RevisionDetail = typeof RevisionDetail.Type
