import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Backlink, type BacklinkCategory } from "../Domain/Backlink.js"
import type { SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import { rfc3339, withinUtcDays } from "../SqlFormats.js"

export interface BacklinkFilter {
  readonly from?: string | undefined
  readonly to?: string | undefined
  /** Only one category (the website page lists industry and local backlinks apart); not a public filter. */
  readonly category?: BacklinkCategory | undefined
}

const Total = Schema.Struct({ total: Schema.Number })

export class BacklinksRepo extends Effect.Service<BacklinksRepo>()("Backlinks/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id,
      ${sql.unsafe(rfc3339("acquired_at"))} as acquired_at,
      source_domain, source_url, target_url, anchor_text, anchor_type, status, category`

    const where = (siteId: SiteId, filter: BacklinkFilter) =>
      sql.and([
        sql`site_id = ${siteId}`,
        ...(filter.category === undefined ? [] : [sql`category = ${filter.category}`]),
        ...withinUtcDays(sql, "acquired_at", filter)
      ])

    // Both queries follow backlinks_site_acquired_idx (a category is filtered along it).
    const list = (siteId: SiteId, filter: BacklinkFilter, page: Page) =>
      Effect.all({
        rows: SqlSchema.findAll({
          Request: Schema.Void,
          Result: Backlink,
          execute: () =>
            sql`select ${columns} from backlinks where ${where(siteId, filter)}
                order by acquired_at desc nulls last, id desc
                limit ${page.per_page} offset ${offsetOf(page)}`
        })(undefined),
        total: SqlSchema.single({
          Request: Schema.Void,
          Result: Total,
          execute: () => sql`select count(*) as total from backlinks where ${where(siteId, filter)}`
        })(undefined).pipe(Effect.map((row) => row.total))
      }).pipe(Effect.orDie)

    return { list }
  })
}) {}
