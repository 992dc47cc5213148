import { HttpApiBuilder, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Either, Option, Schema } from "effect"
import type { EditContext } from "../Articles/Changes.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { AuditLog } from "../Audit/AuditLog.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { EditArticlePayload, noChange } from "../Domain/ArticleEdits.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { putBackProtectedLinks } from "../Html/PutBackLinks.js"
import type { Form } from "../SignIn/Forms.js"
import { type EditorValues, editorModeOf, PUT_BACK_LINKS, previewSection } from "./ArticleEditor.js"
import { articleView, historyPageOf, positive } from "./ArticleView.js"
import { type EditorAction, recordEditorCall } from "./EditorCalls.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, pagePart, seeOther, type Viewer } from "./Layout.js"

const searchOf = (url: string) => new URL(url, "http://localhost").searchParams

/** The values a form submitted, shown again when it was refused or previewed. */
const submitted = (form: Form): EditorValues => ({
  title: form.get("title") ?? "",
  meta_description: form.get("meta_description") ?? "",
  body: form.get("body") ?? "",
  reason: form.get("reason") ?? "",
  mode: editorModeOf(form.get("mode"))
})

/** A refusal a person can act on (a check, a bound, the day's quota), as opposed to a missing article. */
const isRefusal = (error: { readonly _tag: string }) => error._tag !== "NotFound"

/** The editor's fields, decoded by the payload schema the API uses: a refusal is the API's 422, word for word. */
const decodeEdit = (fields: unknown) =>
  Schema.decodeUnknown(EditArticlePayload)(fields).pipe(Effect.mapError(fromParseError))

/**
 * The article page (`/articles/:id`), its editor (`POST /articles/:id/edit`) and "Preview changes"
 * (`POST /articles/:id/preview`). A refused save comes back as it was typed, with "Put the protected links back" when
 * protected links are why (the same form, `action=put_back_links`). Another account's article is a 404, like a missing one; every change goes through
 * ArticleEdits with origin `editor`. The featured image and the revisions have their own routes
 * (FeaturedImageRoutes, RevisionRoutes).
 */
export const ArticleRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const edits = yield* ArticleEdits
    const audit = yield* AuditLog
    const { routeArticle, showArticle } = yield* articleView

    yield* router.get(
      "/articles/:id",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const article = yield* routeArticle(viewer)
          if (Option.isNone(article)) return notFoundPage(viewer, "article")
          const saved = positive(searchOf(request.url).get("saved"))
          const notice = Option.match(saved, {
            onNone: () =>
              searchOf(request.url).get("saved") === "none" ? "Nothing had changed, so nothing was saved." : undefined,
            onSome: (n) => `Saved as revision ${n}.`
          })
          const historyPage = historyPageOf(request.url)
          return yield* showArticle(
            viewer,
            article.value,
            notice === undefined ? { historyPage } : { notice, historyPage }
          )
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

    /**
     * Title, body and meta description through the API's own edit service: one revision (its number), or none if
     * none changed.
     */
    const save = (viewer: Viewer, current: ArticleWithBody, form: Form) =>
      Effect.gen(function* () {
        const { fields, context, changed } = yield* changeOf(viewer, current, form)
        if (!changed) return Option.none<number>()
        const saved = yield* edits.edit(context, current.id, fields)
        return Option.some(saved.revision)
      })

    /**
     * Runs a save or a preview of the editor; one that was refused (by a check, a bound, the day's quota) or a
     * preview is recorded in the call log, so that the activity pages list it.
     */
    const logged = <A, E extends { readonly _tag: string }>(
      viewer: Viewer,
      articleId: number,
      action: EditorAction,
      run: Effect.Effect<A, E>
    ) =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const outcome = yield* Effect.either(run)
        const refusal = Either.isLeft(outcome) ? outcome.left : undefined
        if (refusal === undefined ? action === "preview" : isRefusal(refusal)) {
          yield* recordEditorCall(audit, { credential: viewer.credential, articleId, action, started, refusal })
        }
        return outcome
      })

    /** What saving the form would do, from the edit service's dry run (the API's `dry_run`): nothing is saved. */
    const previewOf = (viewer: Viewer, current: ArticleWithBody, form: Form) =>
      Effect.gen(function* () {
        const { fields, context } = yield* changeOf(viewer, current, form)
        const { article, preview } = yield* edits.previewEdit(context, current.id, fields)
        return previewSection({
          _tag: "Preview",
          article,
          preview: preview ?? noChange(article)
        })
      }).pipe(
        (run) => logged(viewer, current.id, "preview", run),
        Effect.flatMap(Either.match({ onLeft: Effect.fail, onRight: Effect.succeed })),
        Effect.catchIf(isRefusal, (error) => Effect.succeed(previewSection({ _tag: "Refused", error })))
      )

    yield* router.post(
      "/articles/:id/edit",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.form(`/articles/${params.id ?? ""}`, (viewer, form) =>
          Effect.gen(function* () {
            const article = yield* routeArticle(viewer)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const current = article.value
            const editor = submitted(form)
            if (form.get("action") === PUT_BACK_LINKS) {
              // Nothing is saved: the text comes back with the protected links where they stood, to be saved.
              const body = putBackProtectedLinks(current.body, editor.body.replace(/\r\n?/g, "\n"))
              return yield* showArticle(viewer, current, {
                editor: { ...editor, body },
                editorNote: { _tag: "LinksPutBack" }
              })
            }
            const outcome = yield* logged(viewer, current.id, "edit", save(viewer, current, form))
            if (Either.isLeft(outcome)) {
              if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "article")
              // A refused save changed nothing: the page shows the article as it is, with the values as submitted, in
              // the editor's mode, and the refusal next to Save.
              return yield* showArticle(viewer, current, {
                editor,
                editorNote: { _tag: "Refused", error: outcome.left }
              })
            }
            return seeOther(
              `/articles/${current.id}?saved=${Option.getOrElse(Option.map(outcome.right, String), () => "none")}`
            )
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
            const article = yield* routeArticle(viewer)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const preview = yield* previewOf(viewer, article.value, form)
            if (request.headers["x-page-part"] === "preview") return pagePart("preview", preview)
            return yield* showArticle(viewer, article.value, { editor: submitted(form), preview })
          })
        )
      })
    )
  })
)
