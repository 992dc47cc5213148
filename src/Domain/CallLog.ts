import { Schema } from "effect"
import { CONTROL_CHARACTERS } from "./Controls.js"
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
  note: Schema.NullOr(CallNote),
  /** A failed call's `error` identifier, from its answer. */
  error: Schema.NullOr(Schema.String),
  /** A failed call's `message`, as one line of at most MAX_CALL_MESSAGE characters (see `callMessage`). */
  message: Schema.NullOr(Schema.String)
})
export type AuditEntry = typeof AuditEntry.Type

/** The most characters of a failed call's message the log keeps: enough to say why, never a whole echoed body. */
export const MAX_CALL_MESSAGE = 300

const controlRuns = new RegExp(`[${CONTROL_CHARACTERS}\\s]+`, "g")

/**
 * A failed call's message as the log keeps it: one line (line breaks, tabs and other control characters each run
 * become one space), at most MAX_CALL_MESSAGE characters, the cut marked with "…".
 */
export const callMessage = (message: string): string => {
  const line = message.replace(controlRuns, " ").trim()
  return line.length > MAX_CALL_MESSAGE ? `${line.slice(0, MAX_CALL_MESSAGE - 1)}…` : line
}

/** What a failed call's answer said: its `error` identifier and its `message`, bounded as the log keeps them. */
export const callFailure = (body: unknown): { readonly error: string | null; readonly message: string | null } => {
  if (typeof body !== "object" || body === null) return { error: null, message: null }
  const { error, message } = body as { readonly error?: unknown; readonly message?: unknown }
  return {
    error: typeof error === "string" ? callMessage(error).slice(0, 64) : null,
    message: typeof message === "string" ? callMessage(message) : null
  }
}
