import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Article, ArticleContent, type ArticleStatus, contentOf, ProtectedLink } from "../Domain/Article.js"
import { type AccountId, ArticleId, type SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import type { ReadScope } from "../Domain/Scope.js"
import { rfc3339, withinDays, withinUtcDays } from "../Sql/SqlFormats.js"
import { storedLinks } from "./StoredLinks.js"

export interface ArticleFilter {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly status?: ArticleStatus | undefined
}

export class ArticleRow extends Schema.Class<ArticleRow>("ArticleRow")({
  ...Article.fields,
  ...ArticleContent.fields,
  /** Stored with the body; see StoredLinks.protectedLinksOf before trusting them. */
  protected_links: Schema.NullOr(Schema.Array(ProtectedLink)),
  protected_links_sha256: Schema.NullOr(Schema.Uint8ArrayFromSelf)
}) {}

export interface ArticleChange extends ArticleContent {
  readonly word_count: number
  readonly revision: number
  /** The protected links of `body`, stored with its digest. */
  readonly protected_links: ReadonlyArray<ProtectedLink>
}

export class ArticlesRepo extends Effect.Service<ArticlesRepo>()("Articles/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Every field of a schema is a column of `articles` by the same name; the publication time is formatted here.
    const column = (field: string) =>
      field === "published_at" ? sql`${sql.unsafe(rfc3339("a.published_at"))} as published_at` : sql`a.${sql(field)}`
    const columns = sql.csv(Object.keys(Article.fields).map(column))
    const withBody = sql.csv(Object.keys(ArticleRow.fields).map(column))

    const where = (siteId: SiteId, filter: ArticleFilter) =>
      sql.and([
        sql`a.site_id = ${siteId}`,
        ...(filter.status === undefined ? [] : [sql`a.status = ${filter.status}`]),
        ...withinUtcDays(sql, "a.published_at", filter)
      ])

    // The number of articles `where` matches, summed over the website's day counts (article_day_counts_key)
    // rather than counted over its rows.
    const total = (siteId: SiteId, filter: ArticleFilter) =>
      sql`select coalesce(sum(c.count), 0)::int8 from article_day_counts c where ${sql.and([
        sql`c.site_id = ${siteId}`,
        ...(filter.status === undefined ? [] : [sql`c.status = ${filter.status}`]),
        ...withinDays(sql, "c.day", filter)
      ])}`

    // An article of a list as a JSON object, built by the database: the fields of `Article`, in its order, typed and
    // formatted by the SQL and the table's own types and checks (test/Articles.test.ts holds them to the schema).
    // row_to_json writes it without spaces, as every other answer is written (json_build_object writes `"id" : 16`).
    const articleJson = sql`row_to_json((select x from (select ${columns}) x))`

    // One statement for the whole list: whether `scope` may read the website (no row when it may not), the page as
    // the JSON array the response carries, and the total. Taking the rows as JSON text, rather than as rows parsed
    // field by field and then serialised again, was the largest cost of serving a list in Node. The page's ids are
    // found first along articles_site_published_idx (or the status variant), from the index alone, and only the
    // page's own rows are read from the table: an offset deep into a large website skips index entries, not rows.
    const list = (scope: ReadScope, siteId: SiteId, filter: ArticleFilter, page: Page) =>
      Effect.map(
        sql<{ readonly data: string; readonly total: number }>`
          select
            (select '[' || coalesce(string_agg(${articleJson}::text, ',' order by p.published_at desc nulls last, p.id desc), '') || ']' 
             from (
               select a.id, a.published_at from articles a where ${where(siteId, filter)}
               order by a.published_at desc nulls last, a.id desc
               limit ${page.per_page} offset ${offsetOf(page)}
             ) p join articles a on a.id = p.id) as data,
            (${total(siteId, filter)}) as total
          from sites s where s.id = ${siteId} ${scope === null ? sql`` : sql`and s.account_id = ${scope}`}`,
        (rows) => Option.fromNullable(rows[0])
      ).pipe(Effect.orDie)

    // The article if `scope` may read it (null: any article; an account: one on its own websites); with `lock`,
    // locked until the transaction ends.
    const findArticle = (scope: ReadScope, id: ArticleId, lock: boolean) =>
      SqlSchema.findOne({
        Request: ArticleId,
        Result: ArticleRow,
        execute: (articleId) =>
          sql`select ${withBody}
              from articles a join sites s on s.id = a.site_id
              where a.id = ${articleId} ${scope === null ? sql`` : sql`and s.account_id = ${scope}`}
              ${lock ? sql`for update of a` : sql``}`
      })(id).pipe(Effect.orDie)

    const findReadable = (scope: ReadScope, id: ArticleId) => findArticle(scope, id, false)

    /** The article if it is on one of the account's websites, read without a lock. */
    const findWritable = (accountId: AccountId, id: ArticleId) => findArticle(accountId, id, false)

    /** The article for a change by `accountId`, locked until the transaction ends. */
    const lockWritable = (accountId: AccountId, id: ArticleId) => findArticle(accountId, id, true)

    const saveChange = (id: ArticleId, change: ArticleChange) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: ArticleRow,
        execute: () => {
          const stored = storedLinks(change.body, change.protected_links)
          return sql`update articles a set
                ${sql.update(contentOf(change))}, word_count = ${change.word_count},
                revision = ${change.revision}, updated_at = now(),
                protected_links = ${stored.protected_links}::jsonb,
                protected_links_sha256 = ${stored.protected_links_sha256}
              where a.id = ${id}
              returning ${withBody}`
        }
      })(undefined).pipe(Effect.orDie)

    return {
      list,
      findReadable,
      findWritable,
      lockWritable,
      saveChange
    }
  })
}) {}
