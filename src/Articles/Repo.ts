import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { Article, ArticleContent, type ArticleStatus, contentOf, ProtectedLink } from "../Domain/Article.js"
import { type AccountId, ArticleId, type SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import type { ReadScope } from "../Domain/Scope.js"
import { MAX_MATCH_CHARACTERS, searchTerms } from "../Domain/Search.js"
import { rfc3339, withinDays, withinUtcDays } from "../Sql/SqlFormats.js"
import { storedLinks } from "./StoredLinks.js"

export interface ArticleFilter {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly status?: ArticleStatus | undefined
  /** A search (see Domain/Search): matching articles only, by relevance, each with its `match`. */
  readonly q?: string | undefined
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
  /** The body's readable text (what search indexes), when the body changed; the stored one is kept otherwise. */
  readonly body_text?: string | undefined
}

interface ListRow {
  readonly data: string
  readonly total: number
}

// An article's excerpt around the first hit of a search (`p` a row of the page, with the query and its
// configuration): ts_headline's fragment around the first hit in the text searched (body text, title, target
// keyword), its white space made single spaces; when longer than MAX_MATCH_CHARACTERS, the window of that many
// characters that starts a little before the hit. The hit is marked with two private-use characters only to find it.
const EXCERPT_LEAD = 60
const excerpt = `
  (select case when length(c) <= ${MAX_MATCH_CHARACTERS} then c
     else substr(c, greatest(1, least(strpos(h, chr(57344)) - ${EXCERPT_LEAD}, length(c) - ${MAX_MATCH_CHARACTERS - 1})),
       ${MAX_MATCH_CHARACTERS}) end
   from (select h, translate(h, chr(57344) || chr(57345), '') as c
     from (select btrim(regexp_replace(ts_headline(p.config,
         concat_ws(' — ', nullif(a.body_text, ''), a.title, a.target_keyword), p.q,
         'StartSel="' || chr(57344) || '", StopSel="' || chr(57345) || '", MaxFragments=1, MinWords=8, MaxWords=24, ShortWord=2'),
       '\\s+', ' ', 'g')) as h) h) e) as match`

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

    // One page of a page's rows as the JSON array the response carries, in `order`, from `page` (the page's ids).
    const pageJson = (item: Fragment, order: Fragment, page: Fragment) =>
      sql`(select '[' || coalesce(string_agg(${item}::text, ',' order by ${order}), '') || ']'
           from (${page}) p join articles a on a.id = p.id)`

    const scoped = (scope: ReadScope) => (scope === null ? sql`` : sql`and s.account_id = ${scope}`)

    // One statement for the whole list: whether `scope` may read the website (no row when it may not), the page as
    // the JSON array the response carries, and the total. Taking the rows as JSON text, rather than as rows parsed
    // field by field and then serialised again, was the largest cost of serving a list in Node. The page's ids are
    // found first along articles_site_published_idx (or the status variant), from the index alone, and only the
    // page's own rows are read from the table: an offset deep into a large website skips index entries, not rows.
    const list = (scope: ReadScope, siteId: SiteId, filter: ArticleFilter, page: Page) =>
      Effect.map(
        filter.q === undefined
          ? sql<ListRow>`
              select
                ${pageJson(
                  articleJson,
                  sql`p.published_at desc nulls last, p.id desc`,
                  sql`select a.id, a.published_at from articles a where ${where(siteId, filter)}
                      order by a.published_at desc nulls last, a.id desc
                      limit ${page.per_page} offset ${offsetOf(page)}`
                )} as data,
                (${total(siteId, filter)}) as total
              from sites s where s.id = ${siteId} ${scoped(scope)}`
          : search(scope, siteId, filter, filter.q, page),
        (rows) => Option.fromNullable(rows[0])
      ).pipe(Effect.orDie)

    // A search in one statement, as the list: the website's configuration and the query made from `q`, the matching
    // articles found through articles_search_idx and ranked (title above target keyword above body), the page of
    // them in order of relevance then as the list, each with its excerpt, and their number.
    const search = (scope: ReadScope, siteId: SiteId, filter: ArticleFilter, q: string, page: Page) => {
      const terms = searchTerms(q)
      const parts = [
        ...terms.phrases.map((phrase) => sql`phraseto_tsquery(t.config, ${phrase})`),
        ...(terms.words === "" && terms.phrases.length > 0 ? [] : [sql`plainto_tsquery(t.config, ${terms.words})`])
      ]
      const item = sql`row_to_json((select x from (select ${columns}, ${sql.unsafe(excerpt)}) x))`
      return sql<ListRow>`
        with t as (select search_config(s.language) as config from sites s where s.id = ${siteId} ${scoped(scope)}),
        query as (select t.config, ${sql.join(" && ", false)(parts)} as q from t),
        found as materialized (
          select a.id, a.published_at, ts_rank(a.search, query.q) as rank
          from articles a, query where a.search @@ query.q and ${where(siteId, filter)}
        )
        select
          ${pageJson(
            item,
            sql`p.rank desc, p.published_at desc nulls last, p.id desc`,
            sql`select f.id, f.published_at, f.rank, query.config, query.q from found f, query
                order by f.rank desc, f.published_at desc nulls last, f.id desc
                limit ${page.per_page} offset ${offsetOf(page)}`
          )} as data,
          (select count(*) from found)::int8 as total
        from t`
    }

    // The article if `scope` may read it (null: any article; an account: one on its own websites); with `lock`,
    // locked until the transaction ends.
    const findArticle = (scope: ReadScope, id: ArticleId, lock: boolean) =>
      SqlSchema.findOne({
        Request: ArticleId,
        Result: ArticleRow,
        execute: (articleId) =>
          sql`select ${withBody}
              from articles a join sites s on s.id = a.site_id
              where a.id = ${articleId} ${scoped(scope)}
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
                ${change.body_text === undefined ? sql`` : sql`body_text = ${change.body_text},`}
                revision = ${change.revision}, updated_at = now(),
                protected_links = ${stored.protected_links}::jsonb,
                protected_links_sha256 = ${stored.protected_links_sha256}
              where a.id = ${id}
              returning ${withBody}`
        }
      })(undefined).pipe(Effect.orDie)

    /** Up to `limit` articles after `after` (by id) whose body text was never read (see SearchBackfill). */
    const withoutText = (after: number, limit: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ id: ArticleId, revision: Schema.Number, body: Schema.String }),
        execute: () =>
          sql`select id, revision, body from articles where body_text is null and id > ${after}
              order by id limit ${limit}`
      })(undefined).pipe(Effect.orDie)

    /** Stores the body text read from revision `revision`, unless the article has changed (or been read) since. */
    const saveText = (id: ArticleId, revision: number, text: string) =>
      sql`update articles set body_text = ${text}
          where id = ${id} and revision = ${revision} and body_text is null`.pipe(Effect.asVoid, Effect.orDie)

    return {
      list,
      withoutText,
      saveText,
      findReadable,
      findWritable,
      lockWritable,
      saveChange
    }
  })
}) {}
