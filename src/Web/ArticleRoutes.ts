import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { Articles } from "../Articles/Articles.js"
import { ArticleEdits, type EditContext } from "../Articles/Edits.js"
import { AuditLog } from "../Audit/AuditLog.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { EditArticlePayload } from "../Domain/ArticleEdits.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { publicError } from "../Domain/Errors.js"
import { ArticleId } from "../Domain/Ids.js"
import type { Form } from "../SignIn/Forms.js"
import { explain } from "./ArticleErrors.js"
import { articlePage, type EditorValues, restoreConfirmPage, revisionPage } from "./ArticlePages.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther, sendPage, type Viewer } from "./Layout.js"

const positive = (value: string | undefined | null) =>
  value !== undefined && value !== null && /^[1-9][0-9]{0,8}$/.test(value) ? Option.some(Number(value)) : Option.none()

const searchOf = (url: string) => new URL(url, "http://localhost").searchParams

const editorOf = (article: ArticleWithBody, meta: string | null): EditorValues => ({
  title: article.title ?? "",
  meta_description: meta ?? "",
  body: article.body,
  reason: ""
})

/** The editor's fields, decoded by the payload schema the API uses: a refusal is the API's 422, word for word. */
const decodeEdit = (fields: unknown) =>
  Schema.decodeUnknown(EditArticlePayload)(fields).pipe(Effect.mapError(fromParseError))

/**
 * The article page (`/articles/:id`), its editor (`POST /articles/:id/edit`), one revision with its diff
 * (`/articles/:id/revisions/:n`) and Restore (`GET …/restore` asks, `POST …/restore` does it). Another account's
 * article is a 404, like a missing one; every change goes through ArticleEdits with origin `editor`.
 */
export const ArticleRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const articles = yield* Articles
    const edits = yield* ArticleEdits
    const audit = yield* AuditLog

    const articleIdParam = Effect.map(HttpRouter.params, (params) =>
      Option.map(positive(params.id), (id) => ArticleId.make(id))
    )

    /** The viewer's article, or None (missing and foreign look the same). */
    const ownArticle = (viewer: Viewer, id: ArticleId) => articles.get(viewer.credential, id).pipe(Effect.option)

    const showArticle = (
      viewer: Viewer,
      article: ArticleWithBody,
      extra: { editor?: EditorValues; notice?: string; failure?: unknown } = {}
    ) =>
      Effect.gen(function* () {
        const meta = yield* articles.metaDescription(article.id)
        const history = yield* edits.entries(article.id)
        return sendPage(
          articlePage({
            viewer,
            article,
            editor: extra.editor ?? editorOf(article, meta),
            history,
            notice: extra.notice,
            error: extra.failure === undefined ? undefined : explain(extra.failure)
          }),
          extra.failure === undefined ? 200 : publicError(extra.failure).status
        )
      })

    yield* router.get(
      "/articles/:id",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const id = yield* articleIdParam
          const article = Option.isNone(id) ? Option.none() : yield* ownArticle(viewer, id.value)
          if (Option.isNone(article)) return notFoundPage(viewer, "article")
          const saved = positive(searchOf(request.url).get("saved"))
          const notice = Option.match(saved, {
            onNone: () =>
              searchOf(request.url).get("saved") === "none" ? "Nothing had changed, so nothing was saved." : undefined,
            onSome: (n) => `Saved as revision ${n}.`
          })
          return yield* showArticle(viewer, article.value, notice === undefined ? {} : { notice })
        })
      )
    )

    /**
     * Title, body and meta description as one change through the API's own edit service (one revision). Only the
     * fields that changed are sent, so an article whose stored title predates the bounds can still be edited.
     */
    const save = (viewer: Viewer, current: ArticleWithBody, meta: string | null, form: Form) =>
      Effect.gen(function* () {
        const title = form.get("title") ?? ""
        const body = (form.get("body") ?? "").replace(/\r\n?/g, "\n")
        const metaDescription = (form.get("meta_description") ?? "").replace(/\r\n?/g, "\n")
        const reason = (form.get("reason") ?? "").trim()
        const titleChanged = title.trim() !== (current.title ?? "")
        const metaChanged = metaDescription !== (meta ?? "")
        const fields = yield* decodeEdit({
          ...(titleChanged ? { title } : {}),
          body,
          ...(metaChanged ? { meta_description: metaDescription } : {}),
          ...(reason === "" ? {} : { reason })
        })
        if (!titleChanged && body === current.body && !metaChanged) return false
        const context: EditContext = { credential: viewer.credential, origin: "editor", reason: fields.reason }
        yield* edits.edit(context, current.id, fields)
        return true
      })

    yield* router.post(
      "/articles/:id/edit",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.form(`/articles/${params.id ?? ""}`, (viewer, form) =>
          Effect.gen(function* () {
            const id = yield* articleIdParam
            const article = Option.isNone(id) ? Option.none() : yield* ownArticle(viewer, id.value)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const current = article.value
            const editor: EditorValues = {
              title: form.get("title") ?? "",
              meta_description: form.get("meta_description") ?? "",
              body: form.get("body") ?? "",
              reason: form.get("reason") ?? ""
            }
            const meta = yield* articles.metaDescription(current.id)
            const outcome = yield* Effect.either(save(viewer, current, meta, form))
            if (Either.isLeft(outcome)) {
              if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "article")
              // A refused save changed nothing: the page shows the article as it is, with the submitted values.
              return yield* showArticle(viewer, current, { editor, failure: outcome.left })
            }
            if (!outcome.right) return seeOther(`/articles/${current.id}?saved=none`)
            const history = yield* edits.entries(current.id)
            return seeOther(`/articles/${current.id}?saved=${history[0]?.number ?? 0}`)
          })
        )
      })
    )

    const withRevision = (viewer: Viewer) =>
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const id = yield* articleIdParam
        const number = positive(params.n)
        if (Option.isNone(id) || Option.isNone(number)) return Option.none()
        const article = yield* ownArticle(viewer, id.value)
        if (Option.isNone(article)) return Option.none()
        const history = yield* edits.history(id.value)
        const revision = history.find((row) => row.number === number.value)
        const current = history.find((row) => row.number === article.value.revision)
        return revision === undefined ? Option.none() : Option.some({ article: article.value, revision, current })
      })

    yield* router.get(
      "/articles/:id/revisions/:n",
      guard.page((viewer) =>
        Effect.gen(function* () {
          const found = yield* withRevision(viewer)
          if (Option.isNone(found)) return notFoundPage(viewer, "revision")
          const { revision } = found.value
          // The call that saved it, for an API or MCP change (the editor and rewrites make no call-log row).
          const savedBy =
            revision.origin === "API" || revision.origin === "MCP"
              ? yield* audit.callThatSaved(revision.article_id, revision.number)
              : Option.none()
          return sendPage(revisionPage({ viewer, ...found.value, savedBy }))
        })
      )
    )

    yield* router.get(
      "/articles/:id/revisions/:n/restore",
      guard.page((viewer) =>
        Effect.gen(function* () {
          const found = yield* withRevision(viewer)
          if (Option.isNone(found)) return notFoundPage(viewer, "revision")
          return sendPage(restoreConfirmPage({ viewer, ...found.value }))
        })
      )
    )

    yield* router.post(
      "/articles/:id/revisions/:n/restore",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.form(`/articles/${params.id ?? ""}/revisions/${params.n ?? ""}`, (viewer) =>
          Effect.gen(function* () {
            const found = yield* withRevision(viewer)
            if (Option.isNone(found)) return notFoundPage(viewer, "revision")
            const { article, revision } = found.value
            const context: EditContext = {
              credential: viewer.credential,
              origin: "editor",
              reason: `Restored revision ${revision.number}`
            }
            const outcome = yield* Effect.either(edits.restore(context, article.id, revision.number))
            if (Either.isLeft(outcome)) {
              if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "revision")
              return sendPage(
                revisionPage({ viewer, article, revision, error: explain(outcome.left) }),
                publicError(outcome.left).status
              )
            }
            const history = yield* edits.entries(article.id)
            return seeOther(`/articles/${article.id}?saved=${history[0]?.number ?? 0}`)
          })
        )
      })
    )
  })
)
