import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
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
    const counts = (siteId: SiteId, range: DateRange) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Counts,
        execute: () => sql`
          select
            (select count(*) from articles
              where site_id = ${siteId} and published_at >= ${range.from}::date
                and published_at < ${range.to}::date + 1) as articles_published,
            count(*) filter (where category = 'industry') as backlinks_industry,
            count(*) filter (where category = 'local') as backlinks_local
          from backlinks
          where site_id = ${siteId} and acquired_at >= ${range.from}::date and acquired_at < ${range.to}::date + 1`
      })(undefined).pipe(Effect.orDie)

    return { counts }
  })
}) {}
