import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { CallRecord } from "../Api/Middleware.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { type ArticleContent, sameContent } from "../Domain/Article.js"
import { changeFlags, ifMatchAllows, type Preview } from "../Domain/ArticleEdits.js"
import { unifiedDiff } from "../Domain/BodyDiff.js"
import type { Credential, RevisionOrigin } from "../Domain/Credential.js"
import { Forbidden, NotFound, PreconditionFailed, ProtectedLinkViolation } from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { Events } from "../Events/Events.js"
import {
  compareProtectedLinks,
  describeProtectedLinkChanges,
  extractProtectedLinks,
  protectedLinkChanges
} from "../Html/ProtectedLinks.js"
import type { SanitizeResult } from "../Html/Sanitize.js"
import { bodyText, wordCount } from "../Html/WordCount.js"
import { Limits } from "../Limits/Limits.js"
import { withBody } from "./Articles.js"
import { articleEventRows } from "./EventRows.js"
import { type ArticleRow, ArticlesRepo } from "./Repo.js"
import { RevisionsRepo } from "./RevisionsRepo.js"
import { protectedLinksOf } from "./StoredLinks.js"
import { WritePermits } from "./WritePermits.js"

export type SanitizedBody = Extract<SanitizeResult, { readonly _tag: "Ok" }>

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

/** New content for an article; `sanitized` is present when the body was (re)written. */
export interface Proposal {
  readonly content: ArticleContent
  readonly sanitized?: SanitizedBody | undefined
}

/**
 * How many times an edit is computed from the article as read, outside any transaction, before it is computed
 * under the row lock instead: each retry follows a change that another write committed meanwhile.
 */
const OPTIMISTIC_ATTEMPTS = 3

/** A change computed from an article that another write has changed since: computed again. */
const stale = Symbol("stale")

/** The refusal of a change by a credential that may only read, saying how to get one that may edit. */
const readOnly = (credential: Credential) =>
  new Forbidden({
    message:
      credential.kind === "api_key"
        ? "This API key may only read, so it cannot change articles. Create a key that can edit on the connection page, or with `cbs key create` without --read-only. Nothing was saved."
        : "This connection may only read, so it cannot change articles. Connect again and choose Read and edit. Nothing was saved."
  })

/** What a change would do, for a preview: whether anything changes, and the body's unified diff. */
const previewOf = (current: ArticleContent, next: ArticleContent): Preview => ({
  changed: !sameContent(current, next),
  diff: unifiedDiff(current.body, next.body, { from: "current", to: "proposed" }),
  ...changeFlags(current, next)
})

const preconditionHolds = (context: EditContext, current: ArticleRow) =>
  context.ifMatch !== undefined && !ifMatchAllows(context.ifMatch, current.revision)
    ? Effect.fail(
        new PreconditionFailed({
          message: `The article is at revision ${current.revision}, which If-Match does not name; read it again and retry. Nothing was saved.`
        })
      )
    : Effect.void

/**
 * The one way an article's content changes: a change computed from the current row, checked, and saved with its
 * revision, its quota and its call-log row in one transaction (or, for a preview, checked and not saved).
 */
export class ArticleChanges extends Effect.Service<ArticleChanges>()("Articles/Changes", {
  dependencies: [
    ArticlesRepo.Default,
    RevisionsRepo.Default,
    AuditLog.Default,
    Limits.Default,
    WritePermits.Default,
    Events.Default
  ],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const articles = yield* ArticlesRepo
    const revisions = yield* RevisionsRepo
    const limits = yield* Limits
    const audit = yield* AuditLog
    const permits = yield* WritePermits
    const events = yield* Events
    const eventRows = articleEventRows(sql)

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
            // The body's text (its words, and what search indexes) is read again only when the body changed.
            const read = bodyChanged
              ? sanitized === undefined
                ? bodyText(next.body)
                : { words: sanitized.wordCount, text: sanitized.text }
              : undefined
            const words = read?.words ?? current.word_count ?? wordCount(next.body)
            const revision = current.revision + 1
            if (preview !== undefined) {
              yield* limits.checkEdit(context.credential.accountId)
              return { article: withBody({ ...current, ...next, word_count: words, revision }, links), preview }
            }
            const saved = yield* articles.saveChange(id, {
              ...next,
              word_count: words,
              revision,
              protected_links: links,
              body_text: read?.text
            })
            yield* revisions.insert({
              article_id: id,
              number: revision,
              origin: context.origin,
              reason: context.reason ?? null,
              api_key_id: context.credential.kind === "api_key" ? context.credential.id : null,
              user_id: context.credential.kind === "user" ? context.credential.id : null,
              oauth_client_id: context.credential.clientId ?? null,
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
            // Its event last: the account's event lock is then held only until the commit that follows.
            yield* events.record("article.changed", eventRows.changed([id]))
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
        yield* events.wake
        return outcome
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const change = <E>(
      context: EditContext,
      id: ArticleId,
      edit: (current: ArticleRow) => Effect.Effect<Proposal, E>,
      beforeCommit?: Effect.Effect<void>
    ) => Effect.map(run(context, id, edit, beforeCommit === undefined ? {} : { beforeCommit }), (o) => o.article)

    return { run, change }
  })
}) {}
