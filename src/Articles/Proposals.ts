import { Effect, Schema } from "effect"
import { ArticleContent, type ContentField, contentFields, contentOf } from "../Domain/Article.js"
import { inWords, type PatchArticlePayload, patchChanges } from "../Domain/ArticleEdits.js"
import { DisallowedHtml, ReplacementConflict, ValidationError } from "../Domain/Errors.js"
import { MAX_BODY_CHARACTERS } from "../Html/Bounds.js"
import type { ProtectedLink } from "../Html/ProtectedLinks.js"
import { applyReplacements } from "../Html/Replacements.js"
import type { SanitizeResult } from "../Html/Sanitize.js"
import type { SanitizedBody } from "./Changes.js"
import type { ArticleRow } from "./Repo.js"
import { Sanitizer } from "./Sanitizer.js"
import { trustedLinksOf } from "./StoredLinks.js"

/** The sanitiser's answer as the edit's outcome: the canonical body, or the error that refuses it. */
const canonicalOrRefused = (result: SanitizeResult) =>
  result._tag === "Ok"
    ? Effect.succeed(result)
    : Effect.fail(
        result.limit !== undefined
          ? new ValidationError({ message: `body: ${result.construct}.`, limit: result.limit })
          : new DisallowedHtml({ message: `The body contains a disallowed construct: ${result.construct}.` })
      )

/** Content fields as a change sends them: those left out (or undefined) stay as they are. */
export type ContentFields = { readonly [K in ContentField]?: ArticleContent[K] | undefined }

/** `current`'s content with the fields `fields` sets, as they are stored (a title trimmed, the others as sent). */
const withFields = (current: ArticleContent, fields: ContentFields): ArticleContent => {
  const next: Record<string, unknown> = contentOf(current)
  for (const field of contentFields) {
    const value = fields[field]
    if (value !== undefined) next[field] = field === "title" && typeof value === "string" ? value.trim() : value
  }
  return Schema.validateSync(ArticleContent)(next)
}

/** Why a replacement cannot be applied, and how to make it apply. */
const conflictMessage = (index: number, occurrences: number, all: boolean) => {
  const where = `replacements[${index}]`
  if (occurrences > 1) {
    return `${where}: find occurs ${occurrences} times but must occur exactly once. Make find longer so that it matches one place, or send "all": true to replace all ${occurrences}. Nothing was saved.`
  }
  return `${where}: find occurs 0 times but must occur ${all ? "at least once" : "exactly once"}. Copy it exactly (case and spaces included) from the body as GET returns it, as the replacements before it leave it. Nothing was saved.`
}

/** A PATCH must change something: it names at least one field. */
export const needsAField = (payload: PatchArticlePayload) =>
  patchChanges.every((field) => payload[field] === undefined)
    ? Effect.fail(new ValidationError({ message: `Send at least one of ${inWords(patchChanges)}.` }))
    : Effect.void

/**
 * The new content an edit proposes, computed from the article as it stands: the fields it sets, or its replacements
 * applied to the canonical body, with the new body sanitised (or refused).
 */
export class ArticleProposals extends Effect.Service<ArticleProposals>()("Articles/Proposals", {
  dependencies: [Sanitizer.Default],
  effect: Effect.gen(function* () {
    const sanitizer = yield* Sanitizer

    /**
     * The canonical form of `html`, or why it is refused. `edited` names the canonical body `html` was made from by
     * replacing text, with its protected links.
     */
    const canonicalBody = (
      html: string,
      edited?: { readonly before: string; readonly links: ReadonlyArray<ProtectedLink> }
    ) =>
      Effect.flatMap(
        edited === undefined ? sanitizer.body(html) : sanitizer.textEdit(edited.before, edited.links, html),
        canonicalOrRefused
      )

    /**
     * The new content of an edit of any content fields (title, body, meta description, ...). The new body does not
     * depend on the article: it is sanitised once, however often the edit is computed again after another write.
     */
    const fieldsEdit = (fields: ContentFields) =>
      Effect.map(
        fields.body === undefined
          ? Effect.succeed<Effect.Effect<SanitizedBody | undefined, ValidationError | DisallowedHtml>>(
              Effect.succeed(undefined)
            )
          : Effect.cached(canonicalBody(fields.body)),
        (body) => (current: ArticleRow) =>
          Effect.gen(function* () {
            const sanitized = yield* body
            return { content: withFields(current, { ...fields, body: sanitized?.html }), sanitized }
          })
      )

    /** The new content of a PATCH: title, meta description and in-order replacements on the canonical body. */
    const patchEdit = (payload: PatchArticlePayload) => (current: ArticleRow) =>
      Effect.gen(function* () {
        let sanitized: SanitizedBody | undefined
        if (payload.replacements !== undefined && payload.replacements.length > 0) {
          const replaced = applyReplacements(current.body, payload.replacements, MAX_BODY_CHARACTERS)
          if (replaced._tag === "TooLong") {
            return yield* new ValidationError({
              message: `body: replacements[${replaced.index}] would make the body ${replaced.length} characters long; it must be at most ${MAX_BODY_CHARACTERS}. Nothing was saved.`,
              limit: MAX_BODY_CHARACTERS
            })
          }
          if (replaced._tag === "Conflict") {
            return yield* new ReplacementConflict({
              message: conflictMessage(
                replaced.index,
                replaced.occurrences,
                payload.replacements[replaced.index]?.all === true
              )
            })
          }
          // The stored body is canonical when its stored links are its own: then an edit of its text alone is
          // read in one pass instead of being sanitised again (the answer is the same, see Html/TextEdit).
          const links = trustedLinksOf(current)
          sanitized = yield* canonicalBody(
            replaced.body,
            links === undefined ? undefined : { before: current.body, links }
          )
        }
        return { content: withFields(current, { ...payload, body: sanitized?.html }), sanitized }
      })

    return { fieldsEdit, patchEdit }
  })
}) {}
