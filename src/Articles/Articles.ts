import { Effect, Option } from "effect"
import { ArticleWithBody, type ListedArticle, type ProtectedLink } from "../Domain/Article.js"
import type { Credential } from "../Domain/Credential.js"
import { isOrderedRange } from "../Domain/Dates.js"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import type { ArticleId, SiteId } from "../Domain/Ids.js"
import { pageMeta } from "../Domain/Pagination.js"
import type { ArticlesQuery } from "../Domain/Queries.js"
import { readScope } from "../Domain/Scope.js"
import { Sites } from "../Sites/Sites.js"
import { type ArticleRow, ArticlesRepo } from "./Repo.js"
import { RevisionsRepo } from "./RevisionsRepo.js"
import { protectedLinksOf } from "./StoredLinks.js"

/**
 * The article as GET returns it; `links` when the caller already has the body's protected links. The row has every
 * field of ArticleWithBody (and more, which the class leaves out).
 */
export const withBody = (row: ArticleRow, links?: ReadonlyArray<ProtectedLink>): ArticleWithBody =>
  new ArticleWithBody({ ...row, protected_links: links ?? protectedLinksOf(row) })

export class Articles extends Effect.Service<Articles>()("Articles/Articles", {
  dependencies: [ArticlesRepo.Default, RevisionsRepo.Default, Sites.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ArticlesRepo
    const sites = yield* Sites
    const revisions = yield* RevisionsRepo

    /**
     * A page of the website's articles with its `meta`, the page's `data` as JSON text (an array of `Article`):
     * the API sends it as it is. The website must be readable by `credential` (404 otherwise).
     */
    const listJson = Effect.fn("Articles.listJson")(function* (
      credential: Credential,
      siteId: SiteId,
      query: ArticlesQuery
    ) {
      if (!isOrderedRange(query)) {
        // A website the caller may not read is a 404 before anything is said about the query.
        yield* sites.requireReadable(credential, siteId)
        return yield* new ValidationError({ message: "from must not be after to." })
      }
      const page = { page: query.page, per_page: query.per_page }
      const found = yield* repo.list(readScope(credential), siteId, query, page)
      if (Option.isNone(found)) return yield* new NotFound({ message: `No website with id ${siteId}.` })
      return { data: found.value.data, meta: pageMeta(page, found.value.total) }
    })

    /** The same page with its articles as values (with `q`, each with its `match`). */
    const list = (credential: Credential, siteId: SiteId, query: ArticlesQuery) =>
      Effect.map(listJson(credential, siteId, query), ({ data, meta }) => ({
        data: JSON.parse(data) as ReadonlyArray<ListedArticle>,
        meta
      }))

    const get = Effect.fn("Articles.get")(function* (credential: Credential, id: ArticleId) {
      const row = yield* repo.findReadable(readScope(credential), id)
      return yield* Option.match(row, {
        onNone: () => Effect.fail(new NotFound({ message: `No article with id ${id}.` })),
        onSome: (found) => Effect.succeed(withBody(found))
      })
    })

    return {
      list,
      listJson,
      get,
      /** Keeps each article's current content as its revision (origin and reason recorded with it). */
      storeRevisions: revisions.storeCurrent
    }
  })
}) {}
