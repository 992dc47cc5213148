import { Schema } from "effect"
import { ArticleContent } from "./Article.js"
import { RevisionOrigin } from "./Credential.js"
import { ArticleId } from "./Ids.js"

/** A revision as a change stores it: a full snapshot of the article, with where it came from and who made it. */
export const NewRevision = Schema.Struct({
  article_id: ArticleId,
  number: Schema.Number,
  origin: RevisionOrigin,
  reason: Schema.NullOr(Schema.String),
  api_key_id: Schema.NullOr(Schema.Number),
  user_id: Schema.NullOr(Schema.Number),
  /** The snapshot: the article's whole content, in columns of the same names. */
  ...ArticleContent.fields
})

/** A stored revision, with when it was made. */
export class RevisionRow extends Schema.Class<RevisionRow>("RevisionRow")({
  ...NewRevision.fields,
  created_at: Schema.String
}) {}

/** A revision as the history lists it, with who made it (a user's e-mail or an API key's name and prefix). */
export class RevisionEntry extends Schema.Class<RevisionEntry>("RevisionEntry")({
  number: Schema.Number,
  created_at: Schema.String,
  origin: RevisionOrigin,
  reason: Schema.NullOr(Schema.String),
  user_email: Schema.NullOr(Schema.String),
  key_name: Schema.NullOr(Schema.String),
  key_prefix: Schema.NullOr(Schema.String)
}) {}
