import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import {
  Backlink,
  type BacklinkCategory,
  BacklinkCheck,
  type BacklinkStatus,
  SHOWN_CHECKS
} from "../Domain/Backlink.js"
import { type BacklinkId, SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import { recordColumns, recordJson, rfc3339, withinDays, withinUtcDays } from "../Sql/SqlFormats.js"

export interface BacklinkFilter {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly status?: typeof BacklinkStatus.Type | undefined
  /** Only one category (the website page lists industry and local backlinks apart); not a public filter. */
  readonly category?: BacklinkCategory | undefined
}

/** The fields of a backlink as the interface shows it, and the timestamps among them. */
const FIELDS = Object.keys(Backlink.fields)
const TIMESTAMPS = ["acquired_at", "last_checked_at"]

/** Backlink `alias` as the interface shows it, as JSON (for events), built by the database. */
export const backlinkJson = (sql: SqlClient.SqlClient, alias: string) => recordJson(sql, alias, FIELDS, TIMESTAMPS)

/** The rows of a page as backlinks (the total they carry is left out). */
const decodeRows = Schema.decodeUnknown(Schema.Array(Backlink))
const decodeOne = Schema.decodeUnknown(Schema.Struct({ ...Backlink.fields, site_id: SiteId }))
const decodeChecks = Schema.decodeUnknown(Schema.Array(BacklinkCheck))

export class BacklinksRepo extends Effect.Service<BacklinksRepo>()("Backlinks/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = recordColumns(sql, "backlinks", FIELDS, TIMESTAMPS)

    const where = (siteId: SiteId, filter: BacklinkFilter) =>
      sql.and([
        sql`site_id = ${siteId}`,
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
        ...(filter.category === undefined ? [] : [sql`category = ${filter.category}`]),
        ...withinUtcDays(sql, "acquired_at", filter)
      ])

    // The number of backlinks `where` matches, summed over the website's day counts (backlink_day_counts_key)
    // rather than counted over its rows.
    const total = (siteId: SiteId, filter: BacklinkFilter) =>
      sql`select coalesce(sum(c.count), 0)::int8 from backlink_day_counts c where ${sql.and([
        sql`c.site_id = ${siteId}`,
        ...(filter.status === undefined ? [] : [sql`c.status = ${filter.status}`]),
        ...(filter.category === undefined ? [] : [sql`c.category = ${filter.category}`]),
        ...withinDays(sql, "c.day", filter)
      ])}`

    // One statement: the page along backlinks_site_acquired_idx (backlinks_site_status_acquired_idx for a status; a
    // category is filtered along either), each row carrying the total (an init plan, run once). A page past the last
    // has no row to carry it: the total is read alone then.
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

    /** One backlink with its website's id, if it exists. */
    const find = (id: BacklinkId) =>
      Effect.gen(function* () {
        const [row] = yield* sql`select ${columns}, site_id from backlinks where id = ${id}`
        return row === undefined ? Option.none() : Option.some(yield* decodeOne(row))
      }).pipe(Effect.orDie)

    /** A backlink's last checks, newest first (backlink_checks_backlink_idx). */
    const lastChecks = (id: BacklinkId) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select ${sql.unsafe(rfc3339("checked_at"))} as checked_at, outcome, fetched, http_status, final_url,
            not_modified, rel, anchor_text, indexable, duration_ms, error
          from backlink_checks where backlink_id = ${id}
          order by checked_at desc, id desc limit ${SHOWN_CHECKS}`
        return yield* decodeChecks(rows)
      }).pipe(Effect.orDie)

    return { list, find, lastChecks }
  })
}) {}
