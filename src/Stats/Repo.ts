import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { SiteId } from "../Domain/Ids.js"
import type { DateRange } from "../Domain/Period.js"
import { MonthStats } from "../Domain/Stats.js"
import { withinDays } from "../Sql/SqlFormats.js"

/**
 * One UTC calendar month's counts as the database sums them: `MonthStats` without `backlinks_acquired`, which the
 * service adds. Months with nothing to count are not returned.
 */
const MonthCounts = MonthStats.pipe(Schema.omit("backlinks_acquired"))

/** The counts of a range of days, with the website's live and lost backlinks now. */
const Counts = MonthCounts.pipe(Schema.omit("month"))

export class StatsRepo extends Effect.Service<StatsRepo>()("Stats/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Sums over the website's days in the range, along article_day_counts_key and backlink_day_counts_key: at most
    // a few rows per day, however many articles and backlinks the website has. Only published articles count (a
    // scheduled one is not counted until it is published).
    const counts = (siteId: SiteId, range: DateRange) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Counts,
        execute: () => sql`
          select
            (select coalesce(sum(count), 0)::int8 from article_day_counts
              where ${sql.and([sql`site_id = ${siteId}`, sql`status = 'published'`, ...withinDays(sql, "day", range)])}
            ) as articles_published,
            coalesce(sum(count) filter (where category = 'industry'), 0)::int8 as backlinks_industry,
            coalesce(sum(count) filter (where category = 'local'), 0)::int8 as backlinks_local,
            (select coalesce(sum(count) filter (where status = 'live'), 0)::int8 from backlink_day_counts
              where site_id = ${siteId}) as backlinks_live,
            (select coalesce(sum(count) filter (where status = 'lost'), 0)::int8 from backlink_day_counts
              where site_id = ${siteId}) as backlinks_lost
          from backlink_day_counts
          where ${sql.and([sql`site_id = ${siteId}`, ...withinDays(sql, "day", range)])}`
      })(undefined).pipe(Effect.orDie)

    // The same sums, by UTC month: the same counting rules (CONTRACT.md "Stats") as the period counts.
    const byMonth = (siteId: SiteId, range: DateRange) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: MonthCounts,
        execute: () => sql`
          with a as (
            select to_char(day, 'YYYY-MM') as month, sum(count) as articles_published
            from article_day_counts
            where ${sql.and([sql`site_id = ${siteId}`, sql`status = 'published'`, ...withinDays(sql, "day", range)])}
            group by 1
          ), b as (
            select to_char(day, 'YYYY-MM') as month,
              coalesce(sum(count) filter (where category = 'industry'), 0) as backlinks_industry,
              coalesce(sum(count) filter (where category = 'local'), 0) as backlinks_local,
              coalesce(sum(count) filter (where status = 'live'), 0) as backlinks_live,
              coalesce(sum(count) filter (where status = 'lost'), 0) as backlinks_lost
            from backlink_day_counts
            where ${sql.and([sql`site_id = ${siteId}`, ...withinDays(sql, "day", range)])}
            group by 1
          )
          select month, coalesce(a.articles_published, 0)::int8 as articles_published,
            coalesce(b.backlinks_industry, 0)::int8 as backlinks_industry,
            coalesce(b.backlinks_local, 0)::int8 as backlinks_local,
            coalesce(b.backlinks_live, 0)::int8 as backlinks_live,
            coalesce(b.backlinks_lost, 0)::int8 as backlinks_lost
          from a full join b using (month)
          order by month`
      })(undefined).pipe(Effect.orDie)

    return { counts, byMonth }
  })
}) {}
