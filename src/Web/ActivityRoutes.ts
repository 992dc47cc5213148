import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect, Option } from "effect"
import { Articles } from "../Articles/Articles.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { ArticleId } from "../Domain/Ids.js"
import { MAX_PAGE, pageNumberOf } from "../Domain/Pagination.js"
import { ACTIVITY_ORIGINS, accountActivityPage, activityPage } from "./ActivityPages.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, sendPage } from "./Layout.js"

const ACTIVITY_PER_PAGE = 50

const positive = (value: string | undefined | null) =>
  value !== undefined && value !== null && /^[1-9][0-9]{0,8}$/.test(value) ? Option.some(Number(value)) : Option.none()

/** The page number and the origin filter of an activity page; one row more than shown tells whether there is more. */
const listing = (url: string) => {
  const search = new URL(url, "http://localhost").searchParams
  const page = pageNumberOf(search.get("page"), MAX_PAGE)
  const origin = ACTIVITY_ORIGINS.find((o) => o === search.get("origin"))
  return { page, origin, query: { origin, limit: ACTIVITY_PER_PAGE + 1, offset: (page - 1) * ACTIVITY_PER_PAGE } }
}

/**
 * The activity logs: `GET /articles/:id/activity` (one article's calls and changes; another account's article is a
 * 404) and `GET /activity` (the whole account's), both `?page=N&origin=API|MCP|editor|rewrite`, newest first.
 */
export const ActivityRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const articles = yield* Articles
    const audit = yield* AuditLog

    yield* router.get(
      "/articles/:id/activity",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const id = Option.map(positive((yield* HttpRouter.params).id), (n) => ArticleId.make(n))
          const article = Option.isNone(id)
            ? Option.none()
            : yield* articles.get(viewer.credential, id.value).pipe(Effect.option)
          if (Option.isNone(article)) return notFoundPage(viewer, "article")
          const { page, origin, query } = listing(request.url)
          const rows = yield* audit.activityOfArticle(article.value.id, query)
          return sendPage(
            activityPage({
              viewer,
              article: article.value,
              rows: rows.slice(0, ACTIVITY_PER_PAGE),
              origin,
              page,
              hasNext: rows.length > ACTIVITY_PER_PAGE
            })
          )
        })
      )
    )

    yield* router.get(
      "/activity",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const { page, origin, query } = listing(request.url)
          const rows = yield* audit.activityOfAccount(viewer.credential.accountId, query)
          return sendPage(
            accountActivityPage({
              viewer,
              rows: rows.slice(0, ACTIVITY_PER_PAGE),
              origin,
              page,
              hasNext: rows.length > ACTIVITY_PER_PAGE,
              retentionDays: audit.retentionDays
            })
          )
        })
      )
    )
  })
)
