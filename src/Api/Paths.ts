import { Schema } from "effect"
import { ArticleId, ArticleSubject, BacklinkId, PathId, SiteId } from "../Domain/Ids.js"
import { RevisionNumber } from "../Domain/Revision.js"

/** The path parameters of the endpoints: a website or an article, by id. */
export const SitePath = Schema.Struct({ id: PathId(SiteId, "website", "Website id.") })
export const ArticlePath = Schema.Struct({ id: PathId(ArticleId, "article", "Article id.") }).annotations({
  [ArticleSubject]: "id"
})

export const BacklinkPath = Schema.Struct({ id: PathId(BacklinkId, "backlink", "Backlink id.") })

/** An article's revision, by the article's id and the revision's number. */
export const RevisionPath = Schema.Struct({
  id: ArticlePath.fields.id,
  n: PathId(RevisionNumber, "revision", "Revision number (1, 2, 3… per article).")
}).annotations({ [ArticleSubject]: "id" })
