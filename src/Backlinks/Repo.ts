import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Backlink, type BacklinkCategory } from "../Domain/Backlink.js"
import type { SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import { rfc3339, withinDays, withinUtcDays } from "../Sql/SqlFormats.js"

export interface BacklinkFilter {
  readonly from?: string | undefined
  readonly to?: string | undefined
  /** Only one category (the website page lists industry and local backlinks apart); not a public filter. */
  readonly category?: BacklinkCategory | undefined
}

/** The rows of a page as backlinks (the total they carry is left out). */
const decodeRows = Schema.decodeUnknown(Schema.Array(Backlink))

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

    // The number of backlinks `where` matches, summed over the website's day counts (backlink_day_counts_key)
    // rather than counted over its rows.
    const total = (siteId: SiteId, filter: BacklinkFilter) =>
      sql`select coalesce(sum(c.count), 0)::int8 from backlink_day_counts c where ${sql.and([
        sql`c.site_id = ${siteId}`,
        ...(filter.category === undefined ? [] : [sql`c.category = ${filter.category}`]),
        ...withinDays(sql, "c.day", filter)
      ])}`

    // One statement: the page along backlinks_site_acquired_idx (a category is filtered along it), each row
    // carrying the total (an init plan, run once). A page past the last has no row to carry it: the total is read
    // alone then.
    const list = (siteId: SiteId, filter: BacklinkFilter, page: Page) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ readonly total: number }>`
          select ${columns}, (${total(siteId, filter)}) as total
          from backlinks where ${where(siteId, filter)}
          order by acquired_at desc nulls last, id desc
          limit ${page.per_page} offset ${offsetOf(page)}`
        if (rows.length > 0) return { rows: yield* decodeRows(rows), total: rows[0]!.total }
        const [alone] = yield* sql<{ readonly total: number }>`select (${total(siteId, filter)}) as total`
        return { rows: [], total: alone?.total ?? 0 }
      }).pipe(Effect.orDie)

    return { list }
  })
}) {}
