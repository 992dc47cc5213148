import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { utcInstants } from "../Domain/Dates.js"
import type { SiteId } from "../Domain/Ids.js"
import type { DateRange } from "../Domain/Period.js"

const Counts = Schema.Struct({
  articles_published: Schema.Number,
  backlinks_industry: Schema.Number,
  backlinks_local: Schema.Number
})

export class StatsRepo extends Effect.Service<StatsRepo>()("Stats/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Range scans on articles_site_published_idx and backlinks_site_acquired_idx.
    const counts = (siteId: SiteId, range: DateRange) => {
      const { start, end } = utcInstants(range)
      return SqlSchema.single({
        Request: Schema.Void,
        Result: Counts,
        execute: () => sql`
          select
            (select count(*) from articles
              where site_id = ${siteId} and published_at >= ${start}::timestamptz
                and published_at < ${end}::timestamptz) as articles_published,
            count(*) filter (where category = 'industry') as backlinks_industry,
            count(*) filter (where category = 'local') as backlinks_local
          from backlinks
          where site_id = ${siteId} and acquired_at >= ${start}::timestamptz and acquired_at < ${end}::timestamptz`
      })(undefined).pipe(Effect.orDie)
    }

    return { counts }
  })
}) {}
