import type { SqlClient } from "@effect/sql"
import type { BacklinkId } from "../Domain/Ids.js"
import type { EventRows } from "../Events/EventRows.js"
import { backlinkJson } from "./Repo.js"

/** The events of backlinks, as rows for Events.record. */
export const backlinkEventRows = (sql: SqlClient.SqlClient) => ({
  /** backlink.acquired for each backlink of `ids`, as it is now. */
  acquired: (ids: ReadonlyArray<BacklinkId>): EventRows => sql`
    select s.account_id, b.site_id, jsonb_build_object('site_id', b.site_id) || ${backlinkJson(sql, "b")} as data
    from backlinks b join sites s on s.id = b.site_id
    where b.id in ${sql.in(ids)}`,
  /** backlink.status_changed for backlink `id`, as it is now, with the status and lost reason it had before. */
  statusChanged: (
    id: BacklinkId,
    previous: { readonly status: string | null; readonly lost_reason: string | null }
  ): EventRows => sql`
    select s.account_id, b.site_id,
      jsonb_build_object('site_id', b.site_id, 'previous_status', ${previous.status}::text,
        'previous_lost_reason', ${previous.lost_reason}::text) || ${backlinkJson(sql, "b")} as data
    from backlinks b join sites s on s.id = b.site_id
    where b.id = ${id}`
})
