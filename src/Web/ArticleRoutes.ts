import { HttpApiBuilder, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { Articles } from "../Articles/Articles.js"
import type { EditContext } from "../Articles/Changes.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { FeaturedImages } from "../Articles/FeaturedImages.js"
import { AuditLog } from "../Audit/AuditLog.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { EditArticlePayload, FeaturedImageMultipart, noChange } from "../Domain/ArticleEdits.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { publicError } from "../Domain/Errors.js"
import { ArticleId } from "../Domain/Ids.js"
import type { Form } from "../SignIn/Forms.js"
import type { SafeHtml } from "../Ui/Html.js"
import { type EditorValues, previewSection } from "./ArticleEditor.js"
import { explain } from "./ArticleErrors.js"
import { articlePage, restoreConfirmPage, revisionPage } from "./ArticlePages.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, pagePart, seeOther, sendPage, type Viewer } from "./Layout.js"

const positive = (value: string | undefined | null) =>
  value !== undefined && value !== null && /^[1-9][0-9]{0,8}$/.test(value) ? Option.some(Number(value)) : Option.none()

const searchOf = (url: string) => new URL(url, "http://localhost").searchParams

/** The values a form submitted, shown again when it was refused or previewed. */
const submitted = (form: Form): EditorValues => ({
  title: form.get("title") ?? "",
  meta_description: form.get("meta_description") ?? "",
  body: form.get("body") ?? "",
  reason: form.get("reason") ?? ""
})

/** A refusal a person can act on (a check, a bound, the day's quota), as opposed to a missing article. */
const isRefusal = (error: { readonly _tag: string }) => error._tag !== "NotFound"

const editorOf = (article: ArticleWithBody): EditorValues => ({
  title: article.title ?? "",
  meta_description: article.meta_description ?? "",
  body: article.body,
  reason: ""
})

/** The editor's fields, decoded by the payload schema the API uses: a refusal is the API's 422, word for word. */
const decodeEdit = (fields: unknown) =>
  Schema.decodeUnknown(EditArticlePayload)(fields).pipe(Effect.mapError(fromParseError))

/** The featured-image form's text fields, decoded by the endpoint's own schema. */
const decodeImageFields = (fields: unknown) =>
  Schema.decodeUnknown(FeaturedImageMultipart.omit("image"))(fields).pipe(Effect.mapError(fromParseError))

/**
 * The article page (`/articles/:id`), its editor (`POST /articles/:id/edit`), one revision with its diff
 * (`/articles/:id/revisions/:n`), "Preview changes" (`POST /articles/:id/preview`), the featured image
 * (`POST /articles/:id/featured-image`) and Restore (`GET …/restore` asks, `POST …/restore` does it). Another account's
 * article is a 404, like a missing one; every change goes through ArticleEdits with origin `editor`.
 */
export const ArticleRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const articles = yield* Articles
    const edits = yield* ArticleEdits
    const audit = yield* AuditLog
    const featuredImages = yield* FeaturedImages

    const articleIdParam = Effect.map(HttpRouter.params, (params) =>
      Option.map(positive(params.id), (id) => ArticleId.make(id))
    )

    /** The viewer's article, or None (missing and foreign look the same). */
    const ownArticle = (viewer: Viewer, id: ArticleId) => articles.get(viewer.credential, id).pipe(Effect.option)

    const showArticle = (
      viewer: Viewer,
      article: ArticleWithBody,
      extra: { editor?: EditorValues; notice?: string; failure?: unknown; preview?: SafeHtml } = {}
    ) =>
      Effect.gen(function* () {
        const history = yield* edits.entries(article.id)
        return sendPage(
          articlePage({
            viewer,
            article,
            editor: extra.editor ?? editorOf(article),
            history,
            notice: extra.notice,
            preview: extra.preview,
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
     * The editor's fields as one change, decoded as the API decodes them. Only the fields that changed are sent, so
     * an article whose stored title predates the bounds can still be edited.
     */
    const changeOf = (viewer: Viewer, current: ArticleWithBody, form: Form) =>
      Effect.gen(function* () {
        const title = form.get("title") ?? ""
        const body = (form.get("body") ?? "").replace(/\r\n?/g, "\n")
        const metaDescription = (form.get("meta_description") ?? "").replace(/\r\n?/g, "\n")
        const reason = (form.get("reason") ?? "").trim()
        const titleChanged = title.trim() !== (current.title ?? "")
        const metaChanged = metaDescription !== (current.meta_description ?? "")
        const fields = yield* decodeEdit({
          ...(titleChanged ? { title } : {}),
          body,
          ...(metaChanged ? { meta_description: metaDescription } : {}),
          ...(reason === "" ? {} : { reason })
        })
        const context: EditContext = { credential: viewer.credential, origin: "editor", reason: fields.reason }
        return { fields, context, changed: titleChanged || body !== current.body || metaChanged }
      })

    /** Title, body and meta description through the API's own edit service: one revision, or none if none changed. */
    const save = (viewer: Viewer, current: ArticleWithBody, form: Form) =>
      Effect.gen(function* () {
        const { fields, context, changed } = yield* changeOf(viewer, current, form)
        if (!changed) return false
        yield* edits.edit(context, current.id, fields)
        return true
      })

    /** What saving the form would do, from the edit service's dry run (the API's `dry_run`): nothing is saved. */
    const previewOf = (viewer: Viewer, current: ArticleWithBody, form: Form) =>
      Effect.gen(function* () {
        const { fields, context } = yield* changeOf(viewer, current, form)
        const { article, preview } = yield* edits.previewEdit(context, current.id, fields)
        return previewSection({
          _tag: "Preview",
          before: { title: current.title, meta_description: current.meta_description },
          article,
          preview: preview ?? noChange(article)
        })
      }).pipe(Effect.catchIf(isRefusal, (error) => Effect.succeed(previewSection({ _tag: "Refused", error }))))

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
            const editor = submitted(form)
            const outcome = yield* Effect.either(save(viewer, current, form))
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

    /**
     * "Preview changes": the editor's values and what saving them would do. With script the page asks for the
     * preview part alone (`x-page-part: preview`) and shows it in place; without, the whole page comes back with it.
     */
    yield* router.post(
      "/articles/:id/preview",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* guard.form(`/articles/${params.id ?? ""}`, (viewer, form) =>
          Effect.gen(function* () {
            const id = yield* articleIdParam
            const article = Option.isNone(id) ? Option.none() : yield* ownArticle(viewer, id.value)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const preview = yield* previewOf(viewer, article.value, form)
            if (request.headers["x-page-part"] === "preview") return pagePart("preview", preview)
            return yield* showArticle(viewer, article.value, { editor: submitted(form), preview })
          })
        )
      })
    )

    /**
     * The featured image from the page: an uploaded file or an address, through the endpoint's own service (the
     * same types by content, 10 MiB, one revision).
     */
    yield* router.post(
      "/articles/:id/featured-image",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.upload(`/articles/${params.id ?? ""}`, (viewer, form, files) =>
          Effect.gen(function* () {
            const id = yield* articleIdParam
            const article = Option.isNone(id) ? Option.none() : yield* ownArticle(viewer, id.value)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const current = article.value
            const outcome = yield* Effect.either(
              Effect.gen(function* () {
                // A form sent without a file chosen still has an empty file part.
                const file = files.find((part) => part.key === "image" && part.name !== "")
                const url = (form.get("url") ?? "").trim()
                const reason = (form.get("reason") ?? "").trim()
                const fields = yield* decodeImageFields({
                  ...(url === "" ? {} : { url }),
                  ...(reason === "" ? {} : { reason })
                })
                const context: EditContext = { credential: viewer.credential, origin: "editor", reason: fields.reason }
                const upload = file === undefined ? undefined : ({ _tag: "File", path: file.path } as const)
                return yield* featuredImages.replace(context, current.id, { upload, url: fields.url })
              })
            )
            if (Either.isLeft(outcome)) {
              if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "article")
              return yield* showArticle(viewer, current, { failure: outcome.left })
            }
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
