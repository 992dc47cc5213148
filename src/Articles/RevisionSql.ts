import type { SqlClient } from "@effect/sql"
import { contentFields } from "../Domain/Article.js"

/**
 * The content fields in which revision `r` differs from `p`, the revision before it (`previousRevision`; none for
 * the first: then every field with a value counts as changed), as a text array.
 */
export const changedFields = (sql: SqlClient.SqlClient) =>
  sql`array_remove(array[${sql.csv(
    contentFields.map(
      (field) => sql`case when p.${sql(field)} is distinct from r.${sql(field)} then ${field}::text end`
    )
  )}], null)`

/** `p`: the revision before revision `r` of the same article, along article_revisions_article_number_key. */
export const previousRevision = (sql: SqlClient.SqlClient) => sql`
  left join lateral (
    select ${sql.csv(contentFields.map((field) => sql`b.${sql(field)}`))} from article_revisions b
    where b.article_id = r.article_id and b.number < r.number order by b.number desc limit 1
  ) p on true`
