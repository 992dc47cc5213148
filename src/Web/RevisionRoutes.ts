import { HttpApiBuilder, HttpRouter, type HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import type { EditContext } from "../Articles/Changes.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { publicError } from "../Domain/Errors.js"
import { explain } from "./ArticleErrors.js"
import { restoreConfirmPage, revisionPage } from "./ArticlePages.js"
import { articleIdParam, articleView, positive } from "./ArticleView.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther, sendPage, type Viewer } from "./Layout.js"

/**
 * One revision of an article with its diff (`/articles/:id/revisions/:n`) and Restore (`GET …/restore` asks,
 * `POST …/restore` does it, through ArticleEdits with origin `editor`). Another account's revision is a 404.
 */
export const RevisionRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const edits = yield* ArticleEdits
    const audit = yield* AuditLog
    const { ownArticle } = yield* articleView

    /** The viewer's revision the route's `:id` and `:n` name, with its article and the article's current revision. */
    const findRevision = (viewer: Viewer) =>
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

    type Found = Option.Option.Value<Effect.Effect.Success<ReturnType<typeof findRevision>>>

    /** `answer` for the revision the route names; the 404 page when the viewer has no such revision. */
    const withRevision = <E, R>(
      viewer: Viewer,
      answer: (found: Found) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(
        findRevision(viewer),
        Option.match({ onNone: () => Effect.succeed(notFoundPage(viewer, "revision")), onSome: answer })
      )

    yield* router.get(
      "/articles/:id/revisions/:n",
      guard.page((viewer) =>
        withRevision(viewer, (found) =>
          Effect.gen(function* () {
            const { revision } = found
            // The call that saved it, for an API or MCP change (the editor and rewrites make no call-log row).
            const savedBy =
              revision.origin === "API" || revision.origin === "MCP"
                ? yield* audit.callThatSaved(revision.article_id, revision.number)
                : Option.none()
            return sendPage(revisionPage({ viewer, ...found, savedBy }))
          })
        )
      )
    )

    yield* router.get(
      "/articles/:id/revisions/:n/restore",
      guard.page((viewer) =>
        withRevision(viewer, (found) => Effect.succeed(sendPage(restoreConfirmPage({ viewer, ...found }))))
      )
    )

    yield* router.post(
      "/articles/:id/revisions/:n/restore",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.form(`/articles/${params.id ?? ""}/revisions/${params.n ?? ""}`, (viewer) =>
          withRevision(viewer, ({ article, revision }) =>
            Effect.gen(function* () {
              // The reason is the restore's own: "Restored revision N".
              const context: EditContext = { credential: viewer.credential, origin: "editor" }
              const outcome = yield* Effect.either(edits.restore(context, article.id, revision.number))
              if (Either.isLeft(outcome)) {
                if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "revision")
                return sendPage(
                  revisionPage({ viewer, article, revision, error: explain(outcome.left) }),
                  publicError(outcome.left).status
                )
              }
              return seeOther(`/articles/${article.id}?saved=${outcome.right.revision}`)
            })
          )
        )
      })
    )
  })
)
