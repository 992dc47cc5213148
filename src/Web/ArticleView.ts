import { HttpRouter } from "@effect/platform"
import { Effect, Option } from "effect"
import { Articles } from "../Articles/Articles.js"
import { ArticleRevisions } from "../Articles/Revisions.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { publicError } from "../Domain/Errors.js"
import { ArticleId } from "../Domain/Ids.js"
import { MAX_PAGE, pageNumberOf } from "../Domain/Pagination.js"
import type { SafeHtml } from "../Ui/Html.js"
import type { EditorNote, EditorValues } from "./ArticleEditor.js"
import { explain } from "./ArticleErrors.js"
import { articlePage } from "./ArticlePages.js"
import { sendPage, type Viewer } from "./Layout.js"

/** Revisions per page of the article page's history. */
export const REVISIONS_PER_PAGE = 20

/** The history's page from the article page's address (`history_page`); anything that is not one is the first. */
export const historyPageOf = (url: string) =>
  pageNumberOf(new URL(url, "http://localhost").searchParams.get("history_page"), MAX_PAGE)

/** A path or query number (an id, a revision): digits without a leading zero, or None. */
export const positive = (value: string | undefined | null) =>
  value !== undefined && value !== null && /^[1-9][0-9]{0,8}$/.test(value) ? Option.some(Number(value)) : Option.none()

/** The route's `:id`, or None when it cannot name an article. */
export const articleIdParam = Effect.map(HttpRouter.params, (params) =>
  Option.map(positive(params.id), (id) => ArticleId.make(id))
)

const editorOf = (article: ArticleWithBody): EditorValues => ({
  title: article.title ?? "",
  meta_description: article.meta_description ?? "",
  body: article.body,
  reason: "",
  mode: "rich"
})

/** The page's status: a refusal's own, or 200. */
const statusOf = (failure: unknown) => (failure === undefined ? 200 : publicError(failure).status)

/**
 * What the article's routes share: the viewer's article, and the article page (with the editor's values, a notice,
 * a refusal at the top or next to the editor's Save button, or a preview, a page of its history) answered with the
 * refusal's status. The history is a page of the API's revisions list (`GET /articles/{id}/revisions`), read with the
 * viewer's credential.
 */
export const articleView = Effect.gen(function* () {
  const articles = yield* Articles
  const revisions = yield* ArticleRevisions

  /** The viewer's article, or None (missing and foreign look the same). */
  const ownArticle = (viewer: Viewer, id: ArticleId) => articles.get(viewer.credential, id).pipe(Effect.option)

  /** The viewer's article that the route's `:id` names, or None (an `:id` that cannot name one finds none). */
  const routeArticle = (viewer: Viewer) =>
    Effect.flatMap(
      articleIdParam,
      Option.match({ onNone: () => Effect.succeedNone, onSome: (id) => ownArticle(viewer, id) })
    )

  const showArticle = (
    viewer: Viewer,
    article: ArticleWithBody,
    extra: {
      editor?: EditorValues
      editorNote?: EditorNote
      notice?: string
      failure?: unknown
      preview?: SafeHtml
      historyPage?: number
    } = {}
  ) =>
    Effect.gen(function* () {
      // The viewer has just read the article, so may read its revisions: no second read of it.
      const history = yield* revisions.pageOf(article, {
        page: extra.historyPage ?? 1,
        per_page: REVISIONS_PER_PAGE
      })
      return sendPage(
        articlePage({
          viewer,
          article,
          editor: extra.editor ?? editorOf(article),
          history,
          notice: extra.notice,
          preview: extra.preview,
          editorNote: extra.editorNote,
          error: extra.failure === undefined ? undefined : explain(extra.failure)
        }),
        statusOf(extra.editorNote?._tag === "Refused" ? extra.editorNote.error : extra.failure)
      )
    })

  return { ownArticle, routeArticle, showArticle }
})
