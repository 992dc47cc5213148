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
              where ${sql.and([sql`site_id = ${siteId}`, ...withinUtcDays(sql, "published_at", range)])}
            ) as articles_published,
            count(*) filter (where category = 'industry') as backlinks_industry,
            count(*) filter (where category = 'local') as backlinks_local
          from backlinks
          where ${sql.and([sql`site_id = ${siteId}`, ...withinUtcDays(sql, "acquired_at", range)])}`
      })(undefined).pipe(Effect.orDie)

    return { counts }
  })
}) {}
