import { Schema } from "effect"
import { RevisionOrigin } from "./Credential.js"

/** What a call was besides its status, when it saved nothing: a preview, or a replay of an earlier answer. */
export const CallNote = Schema.Literal("dry_run", "replay")
export type CallNote = typeof CallNote.Type

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
  request_id: Schema.NullOr(Schema.String),
  /** The revision a change saved. */
  revision: Schema.NullOr(Schema.Number),
  /** A preview (nothing saved), or the replay of an earlier answer under its Idempotency-Key (nothing saved again). */
  note: Schema.NullOr(CallNote)
})
export type AuditEntry = typeof AuditEntry.Type
