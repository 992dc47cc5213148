import { Schema } from "effect"
import { CallNote } from "./CallLog.js"
import { RevisionOrigin } from "./Credential.js"

// The activity log's rows, as the audit log reads them and the activity pages show them.

/**
 * One line of an article's story: a call (API or MCP, with its status) or a change made outside the API (in the
 * editor, or by a rewrite or import, with its revision and reason), with who made it.
 */
export class ActivityRow extends Schema.Class<ActivityRow>("ActivityRow")({
  at: Schema.String,
  kind: Schema.Literal("call", "change"),
  /** A call that saved nothing: a preview or a replay. */
  note: Schema.NullOr(CallNote),
  origin: RevisionOrigin,
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  tool: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.Number),
  /** A failed call's `error` identifier and message (one line, bounded), as its answer said them. */
  error: Schema.NullOr(Schema.String),
  message: Schema.NullOr(Schema.String),
  revision: Schema.NullOr(Schema.Number),
  reason: Schema.NullOr(Schema.String),
  user_email: Schema.NullOr(Schema.String),
  key_name: Schema.NullOr(Schema.String),
  key_prefix: Schema.NullOr(Schema.String)
}) {}

/** A line of the account's story: an activity row and the article it concerns, when it concerns one. */
export class AccountActivityRow extends Schema.Class<AccountActivityRow>("AccountActivityRow")({
  ...ActivityRow.fields,
  article_id: Schema.NullOr(Schema.Number),
  /** Whether the article is the account's own (a call may name another account's article, and be refused). */
  own_article: Schema.Boolean,
  article_title: Schema.NullOr(Schema.String)
}) {}

/** The call that saved a revision, as the revision's page names it. */
export class SavingCall extends Schema.Class<SavingCall>("SavingCall")({
  at: Schema.String,
  origin: RevisionOrigin,
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  tool: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String)
}) {}
