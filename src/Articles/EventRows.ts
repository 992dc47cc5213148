import type { SqlClient } from "@effect/sql"
import { Article } from "../Domain/Article.js"
import type { ArticleId } from "../Domain/Ids.js"
import type { EventRows } from "../Events/EventRows.js"
import { recordJson } from "../Sql/SqlFormats.js"
import { changedFields, previousRevision } from "./RevisionSql.js"

/** Article `a` as the interface shows it (every field of Article, none other), as JSON. */
const articleJson = (sql: SqlClient.SqlClient) => recordJson(sql, "a", Object.keys(Article.fields), ["published_at"])

/** The events of articles, as rows for Events.record. */
export const articleEventRows = (sql: SqlClient.SqlClient) => ({
  /** article.changed for each article of `ids`: it as it is now, with the revision it is at (just stored). */
  changed: (ids: ReadonlyArray<ArticleId>): EventRows => sql`
    select s.account_id, a.site_id, ${articleJson(sql)}
      || jsonb_build_object('origin', r.origin, 'reason', r.reason, 'changed', to_jsonb(${changedFields(sql)})) as data
    from articles a
    join sites s on s.id = a.site_id
    join article_revisions r on r.article_id = a.id and r.number = a.revision
    ${previousRevision(sql)}
    where a.id in ${sql.in(ids)}`,
  /** article.published for each article of `ids`, as it is now. */
  published: (ids: ReadonlyArray<ArticleId>): EventRows => sql`
    select s.account_id, a.site_id, ${articleJson(sql)} as data
    from articles a join sites s on s.id = a.site_id
    where a.id in ${sql.in(ids)}`
})
