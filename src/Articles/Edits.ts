import { Effect, Option } from "effect"
import { contentOf } from "../Domain/Article.js"
import type { PatchArticlePayload, UpdateArticlePayload } from "../Domain/ArticleEdits.js"
import { NotFound } from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { ArticleChanges, type EditContext } from "./Changes.js"
import { ArticleProposals, type ContentFields, needsAField } from "./Proposals.js"
import type { ArticleRow } from "./Repo.js"
import { RevisionsRepo } from "./RevisionsRepo.js"

/**
 * Every change an article's content takes, as the doors ask for it (the editor's save, PUT, PATCH, a featured image,
 * a restore), each with its dry run; each is computed by ArticleProposals and applied by ArticleChanges.
 */
export class ArticleEdits extends Effect.Service<ArticleEdits>()("Articles/Edits", {
  dependencies: [ArticleChanges.Default, ArticleProposals.Default, RevisionsRepo.Default],
  effect: Effect.gen(function* () {
    const { run, change } = yield* ArticleChanges
    const { fieldsEdit, patchEdit } = yield* ArticleProposals
    const revisions = yield* RevisionsRepo

    /** Any of title, body and meta description in one change (one revision): the editor's save. */
    const edit = (context: EditContext, id: ArticleId, fields: ContentFields) =>
      Effect.flatMap(fieldsEdit(fields), (compute) => change(context, id, compute))

    /** PUT: a new body (and title). */
    const replace = (context: EditContext, id: ArticleId, payload: UpdateArticlePayload) =>
      edit(context, id, { title: payload.title, body: payload.body })

    /** PATCH: title, meta description and in-order replacements on the canonical body. */
    const patch = (context: EditContext, id: ArticleId, payload: PatchArticlePayload) =>
      Effect.zipRight(needsAField(payload), change(context, id, patchEdit(payload)))

    /** A dry run of the editor's save: the article as it would be saved and a preview; nothing is saved. */
    const previewEdit = (context: EditContext, id: ArticleId, fields: ContentFields) =>
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

    /** The content of revision `number`, over the current row (a field a revision does not keep stays as it is). */
    const restored = (id: ArticleId, number: number) => (current: ArticleRow) =>
      Effect.gen(function* () {
        const revision = yield* revisions.find(id, number)
        if (Option.isNone(revision)) return yield* new NotFound({ message: `Article ${id} has no revision ${number}.` })
        return { content: { ...current, ...contentOf(revision.value) } }
      })

    /** The reason a restore records when none is given. */
    const restoring = (context: EditContext, number: number): EditContext => ({
      ...context,
      reason: context.reason ?? `Restored revision ${number}`
    })

    /**
     * Restoring revision N stores a new revision with N's content, after the same protected-link check against the
     * current body; restoring the current content stores nothing. Every door restores through here.
     */
    const restore = (context: EditContext, id: ArticleId, number: number) =>
      change(restoring(context, number), id, restored(id, number))

    /** A dry run of a restore: the article as it would be saved and a preview; nothing is saved. */
    const previewRestore = (context: EditContext, id: ArticleId, number: number) =>
      run(restoring(context, number), id, restored(id, number), { preview: true })

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
      previewRestore,
      history: revisions.listForArticle
    }
  })
}) {}
