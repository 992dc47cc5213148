import { Clock, Effect } from "effect"
import type { AuditLog } from "../Audit/AuditLog.js"
import { callFailure } from "../Domain/CallLog.js"
import type { Credential } from "../Domain/Credential.js"
import { publicError } from "../Domain/Errors.js"
import { RequestId } from "../Http/RequestId.js"

/** What the editor did: a save (`POST /articles/:id/edit`) or a preview of one (`POST /articles/:id/preview`). */
export type EditorAction = "edit" | "preview"

/**
 * Records a save in the editor that was refused, or a preview, in the call log (origin `editor`), so that the
 * activity pages list it as such, with why it was refused: a saved change is already there as its revision, and a
 * preview saved nothing (note `dry_run`). `refusal` is the error the save or the preview was refused with, if any.
 */
export const recordEditorCall = (
  audit: AuditLog,
  options: {
    readonly credential: Credential
    readonly articleId: number
    readonly action: EditorAction
    readonly started: number
    readonly refusal: unknown
  }
) =>
  Effect.gen(function* () {
    const { credential, articleId, action, refusal } = options
    const ended = yield* Clock.currentTimeMillis
    const requestId = yield* RequestId
    const answer = refusal === undefined ? undefined : publicError(refusal)
    yield* audit.record({
      at: new Date(options.started).toISOString(),
      account_id: credential.accountId,
      api_key_id: credential.kind === "api_key" ? credential.id : null,
      user_id: credential.kind === "user" ? credential.id : null,
      origin: "editor",
      method: "POST",
      path: `/articles/${articleId}/${action}`,
      tool: null,
      article_id: articleId,
      status: answer?.status ?? 200,
      duration_ms: Math.max(0, Math.round(ended - options.started)),
      request_id: requestId === "" ? null : requestId,
      revision: null,
      note: answer === undefined && action === "preview" ? "dry_run" : null,
      ...(answer === undefined ? { error: null, message: null } : callFailure(answer.body))
    })
  })
