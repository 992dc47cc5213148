import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { SiteId } from "../Domain/Ids.js"
import type { DateRange } from "../Domain/Period.js"
import { withinUtcDays } from "../SqlFormats.js"

const Counts = Schema.Struct({
  articles_published: Schema.Number,
  backlinks_industry: Schema.Number,
  backlinks_local: Schema.Number
})

/** One UTC calendar month's counts, `month` as `YYYY-MM`; months with nothing to count are not returned. */
export const MonthCounts = Schema.Struct({
  month: Schema.String,
  ...Counts.fields
})
export type MonthCounts = typeof MonthCounts.Type

export class StatsRepo extends Effect.Service<StatsRepo>()("Stats/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The counting rules (CONTRACT.md "Stats"), shared by the period counts and the per-month counts: articles with
    // status published whose published_at is in the range, backlinks whose acquired_at is, by category.
    const publishedArticles = (siteId: SiteId, range: DateRange) =>
      sql.and([sql`site_id = ${siteId}`, sql`status = 'published'`, ...withinUtcDays(sql, "published_at", range)])
    const acquiredBacklinks = (siteId: SiteId, range: DateRange) =>
      sql.and([sql`site_id = ${siteId}`, ...withinUtcDays(sql, "acquired_at", range)])

    // Range scans on articles_site_status_published_idx and backlinks_site_acquired_idx.
    const counts = (siteId: SiteId, range: DateRange) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Counts,
        execute: () => sql`
          select
            (select count(*) from articles where ${publishedArticles(siteId, range)}) as articles_published,
            count(*) filter (where category = 'industry') as backlinks_industry,
            count(*) filter (where category = 'local') as backlinks_local
          from backlinks
          where ${acquiredBacklinks(siteId, range)}`
      })(undefined).pipe(Effect.orDie)

    // The same range scans, grouped by the UTC month of each row.
    const byMonth = (siteId: SiteId, range: DateRange) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: MonthCounts,
        execute: () => sql`
          with a as (
            select to_char(published_at at time zone 'UTC', 'YYYY-MM') as month, count(*) as articles_published
            from articles where ${publishedArticles(siteId, range)}
            group by 1
          ), b as (
            select to_char(acquired_at at time zone 'UTC', 'YYYY-MM') as month,
              count(*) filter (where category = 'industry') as backlinks_industry,
              count(*) filter (where category = 'local') as backlinks_local
            from backlinks where ${acquiredBacklinks(siteId, range)}
            group by 1
          )
          select month, coalesce(a.articles_published, 0) as articles_published,
            coalesce(b.backlinks_industry, 0) as backlinks_industry, coalesce(b.backlinks_local, 0) as backlinks_local
          from a full join b using (month)
          order by month`
      })(undefined).pipe(Effect.orDie)

    return { counts, byMonth }
  })
}) {}
