import { Effect, Option } from "effect"
import type { ArticlesQuery } from "./Articles/Api.js"
import { type ArticleRow, ArticlesRepo } from "./Articles/Repo.js"
import { protectedLinksOf } from "./Articles/StoredLinks.js"
import { ArticleWithBody, type ProtectedLink } from "./Domain/Article.js"
import type { Credential } from "./Domain/Credential.js"
import { isOrderedRange } from "./Domain/Dates.js"
import { NotFound, ValidationError } from "./Domain/Errors.js"
import type { ArticleId, SiteId } from "./Domain/Ids.js"
import { pageMeta } from "./Domain/Pagination.js"
import { readScope } from "./Domain/Scope.js"
import { Sites } from "./Sites.js"

/** The article as GET returns it; `links` when the caller already has the body's protected links. */
export const withBody = (row: ArticleRow, links?: ReadonlyArray<ProtectedLink>): ArticleWithBody =>
  new ArticleWithBody({
    id: row.id,
    site_id: row.site_id,
    title: row.title,
    url: row.url,
    status: row.status,
    published_at: row.published_at,
    target_keyword: row.target_keyword,
    word_count: row.word_count,
    featured_image_url: row.featured_image_url,
    revision: row.revision,
    body: row.body,
    protected_links: links ?? protectedLinksOf(row)
  })

export class Articles extends Effect.Service<Articles>()("Articles", {
  dependencies: [ArticlesRepo.Default, Sites.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ArticlesRepo
    const sites = yield* Sites

    const list = Effect.fn("Articles.list")(function* (credential: Credential, siteId: SiteId, query: ArticlesQuery) {
      yield* sites.requireReadable(credential, siteId)
      if (!isOrderedRange(query)) return yield* new ValidationError({ message: "from must not be after to." })
      const page = { page: query.page, per_page: query.per_page }
      const { rows, total } = yield* repo.list(siteId, query, page)
      return { data: rows, meta: pageMeta(page, total) }
    })

    const get = Effect.fn("Articles.get")(function* (credential: Credential, id: ArticleId) {
      const row = yield* repo.findReadable(readScope(credential), id)
      return yield* Option.match(row, {
        onNone: () => Effect.fail(new NotFound({ message: `No article with id ${id}.` })),
        onSome: (found) => Effect.succeed(withBody(found))
      })
    })

    return { list, get, metaDescription: repo.metaDescription }
  })
}) {}
