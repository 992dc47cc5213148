import { HttpRouter } from "@effect/platform"
import { Effect, Option } from "effect"
import { Articles } from "../Articles/Articles.js"
import { ArticleEdits } from "../Articles/Edits.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { publicError } from "../Domain/Errors.js"
import { ArticleId } from "../Domain/Ids.js"
import type { SafeHtml } from "../Ui/Html.js"
import type { EditorValues } from "./ArticleEditor.js"
import { explain } from "./ArticleErrors.js"
import { articlePage } from "./ArticlePages.js"
import { sendPage, type Viewer } from "./Layout.js"

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
  reason: ""
})

/**
 * What the article's routes share: the viewer's article, and the article page (with the editor's values, a notice,
 * a refusal or a preview) answered with the refusal's status.
 */
export const articleView = Effect.gen(function* () {
  const articles = yield* Articles
  const edits = yield* ArticleEdits

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

  return { ownArticle, showArticle }
})
