import { Schema } from "effect"
import { RevisionOrigin } from "./Credential.js"

/** One call as the call log records it. */
export const AuditEntry = Schema.Struct({
  at: Schema.String,
  account_id: Schema.NullOr(Schema.Number),
  api_key_id: Schema.NullOr(Schema.Number),
  user_id: Schema.NullOr(Schema.Number),
  origin: RevisionOrigin,
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  tool: Schema.NullOr(Schema.String),
  article_id: Schema.NullOr(Schema.Number),
  status: Schema.Number,
  duration_ms: Schema.Number,
  request_id: Schema.NullOr(Schema.String)
})
export type AuditEntry = typeof AuditEntry.Type
