import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { SitePath } from "../Api/Paths.js"
import { Articles } from "../Articles/Articles.js"
import { Backlinks } from "../Backlinks/Backlinks.js"
import type { ArticleStatus } from "../Domain/Article.js"
import type { BacklinkCategory, BacklinkStatus } from "../Domain/Backlink.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import type { SiteId } from "../Domain/Ids.js"
import { pageNumberOf } from "../Domain/Pagination.js"
import { ArticlesQuery } from "../Domain/Queries.js"
import { Sites } from "../Sites/Sites.js"
import { Stats } from "../Stats/Stats.js"
import { BACKLINK_STATUSES } from "./BacklinkHealth.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther, sendPage, type Viewer } from "./Layout.js"
import { periodQueryOf, periodViewOf, THIS_MONTH as THIS_MONTH_VIEW } from "./PeriodPicker.js"
import { ARTICLE_STATUSES, type SearchBox, type SiteView, sitePage, sitesPage } from "./SitesPages.js"

const SITES_PER_PAGE = 50
const ITEMS_PER_PAGE = 20
const THIS_MONTH = { period: "this_month" } as const
const CHART_MONTHS = 12

/** A page number from a query string; anything that is not one is the first page. */
const pageNumber = (value: string | null) => pageNumberOf(value, 999_999)

const statusOf = (value: string | null): ArticleStatus | undefined =>
  ARTICLE_STATUSES.find((status) => status === value)

const backlinkStatusOf = (value: string | null): BacklinkStatus | undefined =>
  BACKLINK_STATUSES.find((status) => status === value)

const searchOf = (url: string) => new URL(url, "http://localhost").searchParams

const decodeSitePath = Schema.decodeUnknownOption(SitePath)

const decodeSearch = Schema.decodeUnknownEither(ArticlesQuery.pick("q"))

/**
 * The search box's text as the articles list reads `q`, by the list's own schema. Right: the search, or none when
 * the box was left empty. Left: why the list refuses it, in the API's words.
 */
const searchOfBox = (typed: string): Either.Either<string | undefined, string> =>
  typed.trim() === ""
    ? Either.right(undefined)
    : decodeSearch({ q: typed }).pipe(
        Either.map((query) => query.q),
        Either.mapLeft((error) => fromParseError(error).message)
      )

/**
 * `GET /` (to the websites), `GET /sites` (the account's websites with this month's counts) and `GET /sites/:id`
 * (one website: this month's counts, its articles by status or by a search, as `GET …/articles` lists them, its
 * backlinks by category, by status too with `backlink_status`, as `GET …/backlinks?status=` lists them). Another
 * account's website
 * is a 404, exactly like a missing one.
 */
export const SitesRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const sites = yield* Sites
    const stats = yield* Stats
    const articles = yield* Articles
    const backlinks = yield* Backlinks

    yield* router.get("/", Effect.succeed(seeOther("/sites")))

    yield* router.get(
      "/sites",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const page = pageNumber(searchOf(request.url).get("page"))
          const listed = yield* sites.list(viewer.credential, { page, per_page: SITES_PER_PAGE })
          const rows = yield* Effect.forEach(
            listed.data,
            (site) =>
              Effect.map(stats.get(viewer.credential, site.id, THIS_MONTH), (counts) => ({ site, stats: counts })),
            { concurrency: 4 }
          )
          return sendPage(sitesPage(viewer, { data: rows, meta: listed.meta }))
        }).pipe(Effect.orDie)
      )
    )

    /**
     * The counts of the period asked for, by the API's own rules; a period they refuse is said in the page, with this
     * month's counts instead.
     */
    const periodCounts = (viewer: Viewer, siteId: SiteId, search: URLSearchParams) =>
      Effect.gen(function* () {
        const query = periodQueryOf(search)
        const counted = Either.isLeft(query)
          ? Either.left(query.left)
          : yield* stats.get(viewer.credential, siteId, query.right).pipe(
              Effect.map((counts) => Either.right({ counts, period: periodViewOf(query.right) })),
              Effect.catchTag("ValidationError", (error) => Effect.succeed(Either.left(error.message)))
            )
        if (Either.isRight(counted)) return { ...counted.right, error: undefined }
        const counts = yield* stats.get(viewer.credential, siteId, THIS_MONTH)
        return { counts, period: THIS_MONTH_VIEW, error: counted.left }
      })

    const showSite = (
      viewer: Viewer,
      siteId: SiteId,
      view: Omit<SiteView, "period">,
      box: SearchBox,
      search: URLSearchParams
    ) =>
      Effect.gen(function* () {
        const site = yield* sites.requireReadable(viewer.credential, siteId)
        const backlinksOf = (category: BacklinkCategory, page: number) =>
          backlinks.list(viewer.credential, siteId, {
            category,
            status: view.backlink_status,
            page,
            per_page: ITEMS_PER_PAGE
          })
        const shown = yield* Effect.all(
          {
            period: periodCounts(viewer, siteId, search),
            months: stats.monthly(viewer.credential, siteId, CHART_MONTHS),
            articles: articles.list(viewer.credential, siteId, {
              status: view.status,
              q: view.q,
              page: view.page,
              per_page: ITEMS_PER_PAGE
            }),
            industry: backlinksOf("industry", view.industry_page),
            local: backlinksOf("local", view.local_page)
          },
          { concurrency: 3 }
        )
        return sendPage(
          sitePage({
            viewer,
            site,
            view: { ...view, period: shown.period.period },
            stats: shown.period.counts,
            periodError: shown.period.error,
            months: shown.months,
            articles: shown.articles,
            search: box,
            backlinks: { industry: shown.industry, local: shown.local }
          }),
          // A refused search is the list's 422; the page still shows the website, its articles unsearched.
          box.error === undefined ? 200 : 422
        )
      })

    yield* router.get(
      "/sites/:id",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const params = yield* HttpRouter.params
          const siteId = Option.map(decodeSitePath(params), (path) => path.id)
          if (Option.isNone(siteId)) return notFoundPage(viewer, "website")
          const search = searchOf(request.url)
          const typed = search.get("q") ?? ""
          const q = searchOfBox(typed)
          const box = { typed, error: Either.isLeft(q) ? q.left : undefined }
          const view = {
            status: statusOf(search.get("status")),
            q: Either.getOrUndefined(q),
            page: pageNumber(search.get("page")),
            backlink_status: backlinkStatusOf(search.get("backlink_status")),
            industry_page: pageNumber(search.get("industry_page")),
            local_page: pageNumber(search.get("local_page"))
          }
          return yield* showSite(viewer, siteId.value, view, box, search).pipe(
            Effect.catchTag("NotFound", () => Effect.succeed(notFoundPage(viewer, "website"))),
            // The view's values are all valid by construction; anything else is a defect.
            Effect.orDie
          )
        })
      )
    )
  })
)
