import { Schema } from "effect"
import { ArticleId, ArticleSubject, PathId, SiteId } from "../Domain/Ids.js"

/** The path parameters of the endpoints: a website or an article, by id. */
export const SitePath = Schema.Struct({ id: PathId(SiteId, "website", "Website id.") })
export const ArticlePath = Schema.Struct({ id: PathId(ArticleId, "article", "Article id.") }).annotations({
  [ArticleSubject]: "id"
})
