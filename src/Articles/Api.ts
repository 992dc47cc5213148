import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Api.js"
import { Article, ArticleStatus, ArticleWithBody } from "../Domain/Article.js"
import { DateRangeQuery } from "../Domain/Dates.js"
import { NotFoundBody, ValidationErrorBody } from "../Domain/Errors.js"
import { ArticleId, PathId, SiteId } from "../Domain/Ids.js"
import { DataResponse, ListResponse, PageQuery } from "../Domain/Pagination.js"

export const ArticlesQuery = Schema.Struct({
  ...DateRangeQuery,
  status: Schema.optional(
    ArticleStatus.annotations({ description: "Only articles with this status: draft, scheduled or published." })
  ),
  ...PageQuery
})
export type ArticlesQuery = typeof ArticlesQuery.Type

export const SitePath = Schema.Struct({ id: PathId(SiteId, "Website id.") })
export const ArticlePath = Schema.Struct({ id: PathId(ArticleId, "Article id.") })

export class ArticlesApi extends HttpApiGroup.make("articles")
  .add(
    HttpApiEndpoint.get("listArticles", "/sites/:id/articles")
      .setPath(SitePath)
      .setUrlParams(ArticlesQuery)
      .addSuccess(ListResponse(Article, "Articles, newest published_at first (nulls last), then id descending."))
      .addError(NotFoundBody)
      .addError(ValidationErrorBody)
      .annotate(OpenApi.Summary, "List a website's articles")
      .annotate(
        OpenApi.Description,
        "Lists a website's articles, newest `published_at` first (articles without one last), then by id descending. `from`/`to` filter on `published_at` (UTC days, inclusive) and leave out articles that have none. A malformed date, `from` after `to`, an unknown status or paging out of bounds: 422 validation_error."
      )
  )
  .add(
    HttpApiEndpoint.get("getArticle", "/articles/:id")
      .setPath(ArticlePath)
      .addSuccess(DataResponse(ArticleWithBody))
      .addError(NotFoundBody)
      .annotate(OpenApi.Summary, "Read an article with its body")
      .annotate(
        OpenApi.Description,
        "Returns the article with its canonical HTML body and the protected links found in it."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Articles") {}
