import { SqlClient } from "@effect/sql"
import { createTwoFilesPatch } from "diff"
import { Effect, Option, Schema } from "effect"
import type { CallRecord } from "../Api/Middleware.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { ArticleContent, type ContentField, contentFields, contentOf, sameContent } from "../Domain/Article.js"
import {
  changeFlags,
  ifMatchAllows,
  inWords,
  type PatchArticlePayload,
  type Preview,
  patchChanges,
  type UpdateArticlePayload
} from "../Domain/ArticleEdits.js"
import type { Credential, RevisionOrigin } from "../Domain/Credential.js"
import {
  DisallowedHtml,
  Forbidden,
  NotFound,
  PreconditionFailed,
  ProtectedLinkViolation,
  ReplacementConflict,
  ValidationError
} from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { MAX_BODY_CHARACTERS } from "../Html/Bounds.js"
import {
  compareProtectedLinks,
  describeProtectedLinkChanges,
  extractProtectedLinks,
  type ProtectedLink,
  protectedLinkChanges
} from "../Html/ProtectedLinks.js"
import { applyReplacements } from "../Html/Replacements.js"
import type { SanitizeResult } from "../Html/Sanitize.js"
import { wordCount } from "../Html/WordCount.js"
import { Limits } from "../Limits/Limits.js"
import { withBody } from "./Articles.js"
import { type ArticleRow, ArticlesRepo } from "./Repo.js"
import { RevisionsRepo } from "./RevisionsRepo.js"
import { Sanitizer } from "./Sanitizer.js"
import { protectedLinksOf, trustedLinksOf } from "./StoredLinks.js"
import { WritePermits } from "./WritePermits.js"

type SanitizedBody = Extract<SanitizeResult, { readonly _tag: "Ok" }>

/** Who makes a change and through which door; recorded with the revision. */
export interface EditContext {
  readonly credential: Credential
  readonly origin: RevisionOrigin
  readonly reason?: string | undefined
  /** `If-Match`: the change is made only if the article is still at a revision it names. */
  readonly ifMatch?: string | undefined
  /** The API call or tool call that makes the change: its call-log row is written in the change's transaction. */
  readonly call?: CallRecord | undefined
}

/** The sanitiser's answer as the edit's outcome: the canonical body, or the error that refuses it. */
const canonicalOrRefused = (result: SanitizeResult) =>
  result._tag === "Ok"
    ? Effect.succeed(result)
    : Effect.fail(
        result.limit !== undefined
          ? new ValidationError({ message: `body: ${result.construct}.`, limit: result.limit })
          : new DisallowedHtml({ message: `The body contains a disallowed construct: ${result.construct}.` })
      )

/**
 * How many times an edit is computed from the article as read, outside any transaction, before it is computed
 * under the row lock instead: each retry follows a change that another write committed meanwhile.
 */
const OPTIMISTIC_ATTEMPTS = 3

/** A change computed from an article that another write has changed since: computed again. */
const stale = Symbol("stale")

/** New content for an article; `sanitized` is present when the body was (re)written. */
interface Proposal {
  readonly content: ArticleContent
  readonly sanitized?: SanitizedBody | undefined
}

/** The refusal of a change by a credential that may only read, saying how to get one that may edit. */
const readOnly = (credential: Credential) =>
  new Forbidden({
    message:
      credential.kind === "api_key"
        ? "This API key may only read, so it cannot change articles. Create a key that can edit on the connection page, or with `cbs key create` without --read-only. Nothing was saved."
        : "This connection may only read, so it cannot change articles. Connect again and choose Read and edit. Nothing was saved."
  })

/** Content fields as a change sends them: those left out (or undefined) stay as they are. */
type ContentFields = { readonly [K in ContentField]?: ArticleContent[K] | undefined }

/** `current`'s content with the fields `fields` sets, as they are stored (a title trimmed, the others as sent). */
const withFields = (current: ArticleContent, fields: ContentFields): ArticleContent => {
  const next: Record<string, unknown> = contentOf(current)
  for (const field of contentFields) {
    const value = fields[field]
    if (value !== undefined) next[field] = field === "title" && typeof value === "string" ? value.trim() : value
  }
  return Schema.validateSync(ArticleContent)(next)
}

/** What a change would do, for a preview: whether anything changes, and the body's unified diff. */
const previewOf = (current: ArticleContent, next: ArticleContent): Preview => ({
  changed: !sameContent(current, next),
  diff: next.body === current.body ? "" : createTwoFilesPatch("current", "proposed", current.body, next.body),
  ...changeFlags(current, next)
})

/** Why a replacement cannot be applied, and how to make it apply. */
const conflictMessage = (index: number, occurrences: number, all: boolean) => {
  const where = `replacements[${index}]`
  if (occurrences > 1) {
    return `${where}: find occurs ${occurrences} times but must occur exactly once. Make find longer so that it matches one place, or send "all": true to replace all ${occurrences}. Nothing was saved.`
  }
  return `${where}: find occurs 0 times but must occur ${all ? "at least once" : "exactly once"}. Copy it exactly (case and spaces included) from the body as GET returns it, as the replacements before it leave it. Nothing was saved.`
}

export class ArticleEdits extends Effect.Service<ArticleEdits>()("Articles/Edits", {
  dependencies: [
    ArticlesRepo.Default,
    RevisionsRepo.Default,
    AuditLog.Default,
    Limits.Default,
    Sanitizer.Default,
    WritePermits.Default
  ],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const articles = yield* ArticlesRepo
    const revisions = yield* RevisionsRepo
    const limits = yield* Limits
    const audit = yield* AuditLog
    const sanitizer = yield* Sanitizer
    const permits = yield* WritePermits

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

    const preconditionHolds = (context: EditContext, current: ArticleRow) =>
      context.ifMatch !== undefined && !ifMatchAllows(context.ifMatch, current.revision)
        ? Effect.fail(
            new PreconditionFailed({
              message: `The article is at revision ${current.revision}, which If-Match does not name; read it again and retry. Nothing was saved.`
            })
          )
        : Effect.void

    /**
     * Runs one change in one transaction with the article row locked, so that concurrent changes apply one after
     * the other and none is lost. `edit` computes the new content from the current row; the protected-link check
     * runs on the result. A change that changes nothing stores no revision and uses no quota. A preview runs every
     * check (the quota as it stands included) and saves nothing.
     *
     * The new content (the sanitising above all) is computed from the article as read before the transaction, so
     * that the row lock, and the connection that holds it, are held only for the writes: the transaction checks
     * that the article is still as read, and computes again from the new state if another write changed it
     * meanwhile (under the lock after OPTIMISTIC_ATTEMPTS tries, so that a write always ends). At most
     * MAX_CONCURRENT_WRITES writes of one account run at once (WritePermits).
     */
    const run = <E>(
      context: EditContext,
      id: ArticleId,
      edit: (current: ArticleRow) => Effect.Effect<Proposal, E>,
      options: { readonly beforeCommit?: Effect.Effect<void>; readonly preview?: boolean } = {}
    ) =>
      Effect.gen(function* () {
        const call = context.call
        if (!context.credential.canWrite) return yield* readOnly(context.credential)
        const notFound = new NotFound({ message: `No article with id ${id}.` })
        /** Applies `computed` (made from `basis`), or the edit computed under the lock when there is none. */
        const apply = (computed?: { readonly basis: ArticleRow; readonly proposal: Proposal }) =>
          Effect.gen(function* () {
            const found = yield* articles.lockWritable(context.credential.accountId, id)
            if (Option.isNone(found)) return yield* notFound
            const current = found.value
            yield* preconditionHolds(context, current)
            if (
              computed !== undefined &&
              (computed.basis.revision !== current.revision || !sameContent(computed.basis, current))
            ) {
              return stale
            }
            const { content: next, sanitized } = computed?.proposal ?? (yield* edit(current))
            const preview = options.preview === true ? previewOf(current, next) : undefined
            if (sameContent(current, next)) return { article: withBody(current), preview }
            const bodyChanged = next.body !== current.body
            const currentLinks = protectedLinksOf(current)
            const links = bodyChanged ? (sanitized?.protectedLinks ?? extractProtectedLinks(next.body)) : currentLinks
            if (bodyChanged) {
              const concerned = compareProtectedLinks(currentLinks, links)
              if (concerned.length > 0) {
                const changes = describeProtectedLinkChanges(protectedLinkChanges(currentLinks, links))
                return yield* new ProtectedLinkViolation({
                  message: `The edit breaks protected links, which must be kept exactly (they may move) and none may be added: it ${changes}. Put them back as they were. Nothing was saved.`,
                  protected_links: concerned
                })
              }
            }
            const words = bodyChanged
              ? (sanitized?.wordCount ?? wordCount(next.body))
              : (current.word_count ?? wordCount(next.body))
            const revision = current.revision + 1
            if (preview !== undefined) {
              yield* limits.checkEdit(context.credential.accountId)
              return { article: withBody({ ...current, ...next, word_count: words, revision }, links), preview }
            }
            const saved = yield* articles.saveChange(id, {
              ...next,
              word_count: words,
              revision,
              protected_links: links
            })
            yield* revisions.insert({
              article_id: id,
              number: revision,
              origin: context.origin,
              reason: context.reason ?? null,
              api_key_id: context.credential.kind === "api_key" ? context.credential.id : null,
              user_id: context.credential.kind === "user" ? context.credential.id : null,
              ...next
            })
            // Only a change that is saved uses quota. Taken last: the account's counter row stays locked only until
            // the commit that follows, and if the quota is used up the whole change rolls back.
            yield* limits.takeEdit(context.credential.accountId)
            // The call that made the change is logged in the change's own transaction: a saved change is never
            // missing from the call log, whatever happens to the process next. (Should the transaction not commit,
            // the call is answered with a 5xx, which the call log records in its own row.)
            if (call !== undefined) {
              yield* audit.recordInTransaction(yield* call.entry(200, { revision }))
              yield* call.markRecorded
            }
            yield* options.beforeCommit ?? Effect.void
            return { article: withBody(saved, links), preview }
          }).pipe(sql.withTransaction)
        const outcome = yield* permits.withPermit(
          context.credential.accountId,
          Effect.gen(function* () {
            for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
              const read = yield* articles.findWritable(context.credential.accountId, id)
              if (Option.isNone(read)) return yield* notFound
              yield* preconditionHolds(context, read.value)
              const proposal = yield* edit(read.value)
              const applied = yield* apply({ basis: read.value, proposal })
              if (applied !== stale) return applied
            }
            return yield* apply().pipe(
              Effect.filterOrDie(
                (applied) => applied !== stale,
                () => "unreachable"
              )
            )
          })
        )
        return outcome
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const change = <E>(
      context: EditContext,
      id: ArticleId,
      edit: (current: ArticleRow) => Effect.Effect<Proposal, E>,
      beforeCommit?: Effect.Effect<void>
    ) => Effect.map(run(context, id, edit, beforeCommit === undefined ? {} : { beforeCommit }), (o) => o.article)

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

    const needsAField = (payload: PatchArticlePayload) =>
      patchChanges.every((field) => payload[field] === undefined)
        ? Effect.fail(new ValidationError({ message: `Send at least one of ${inWords(patchChanges)}.` }))
        : Effect.void

    /** Any of title, body and meta description in one change (one revision): the editor's save. */
    const edit = (context: EditContext, id: ArticleId, fields: Parameters<typeof fieldsEdit>[0]) =>
      Effect.flatMap(fieldsEdit(fields), (compute) => change(context, id, compute))

    /** PUT: a new body (and title). */
    const replace = (context: EditContext, id: ArticleId, payload: UpdateArticlePayload) =>
      edit(context, id, { title: payload.title, body: payload.body })

    /** PATCH: title, meta description and in-order replacements on the canonical body. */
    const patch = (context: EditContext, id: ArticleId, payload: PatchArticlePayload) =>
      Effect.zipRight(needsAField(payload), change(context, id, patchEdit(payload)))

    /** A dry run of the editor's save: the article as it would be saved and a preview; nothing is saved. */
    const previewEdit = (context: EditContext, id: ArticleId, fields: Parameters<typeof fieldsEdit>[0]) =>
      Effect.flatMap(fieldsEdit(fields), (compute) => run(context, id, compute, { preview: true }))

    /** A dry run of PUT. */
    const previewReplace = (context: EditContext, id: ArticleId, payload: UpdateArticlePayload) =>
      previewEdit(context, id, { title: payload.title, body: payload.body })

    /** A dry run of PATCH. */
    const previewPatch = (context: EditContext, id: ArticleId, payload: PatchArticlePayload) =>
      Effect.zipRight(needsAField(payload), run(context, id, patchEdit(payload), { preview: true }))

    /** A new featured image address; `beforeCommit` runs as the change's last step (the upload's file is written). */
    const setFeaturedImage = (
      context: EditContext,
      id: ArticleId,
      url: string,
      beforeCommit: Effect.Effect<void> = Effect.void
    ) =>
      change(
        context,
        id,
        (current) => Effect.succeed({ content: { ...current, featured_image_url: url } }),
        beforeCommit
      ).pipe(
        // The body is untouched, so no protected link can be concerned.
        Effect.catchTag("ProtectedLinkViolation", Effect.die)
      )

    /** A dry run of a new featured image address: the article as it would be saved; nothing is saved. */
    const previewFeaturedImage = (context: EditContext, id: ArticleId, url: string) =>
      run(context, id, (current) => Effect.succeed({ content: { ...current, featured_image_url: url } }), {
        preview: true
      }).pipe(Effect.catchTag("ProtectedLinkViolation", Effect.die))

    /** Restoring revision N stores a new revision with N's content, after the same protected-link check. */
    const restore = (context: EditContext, id: ArticleId, number: number) =>
      change(context, id, (current) =>
        Effect.gen(function* () {
          const revision = yield* revisions.find(id, number)
          if (Option.isNone(revision))
            return yield* new NotFound({ message: `Article ${id} has no revision ${number}.` })
          return { content: { ...current, ...contentOf(revision.value) } }
        })
      )

    return {
      edit,
      replace,
      patch,
      previewEdit,
      previewReplace,
      previewPatch,
      setFeaturedImage,
      previewFeaturedImage,
      restore,
      history: revisions.listForArticle,
      /** The history as the article page lists it: newest first, with who made each change. */
      entries: revisions.entries
    }
  })
}) {}
