import type { SqlClient } from "@effect/sql"
import { Backlink } from "../Domain/Backlink.js"
import type { BacklinkId } from "../Domain/Ids.js"
import type { EventRows } from "../Events/EventRows.js"
import { recordJson } from "../Sql/SqlFormats.js"

/** Backlink `b` as the interface shows it (every field of Backlink), with its website, as JSON. */
const backlinkJson = (sql: SqlClient.SqlClient) =>
  sql`jsonb_build_object('site_id', b.site_id) || ${recordJson(sql, "b", Object.keys(Backlink.fields), "acquired_at")}`

/** The events of backlinks, as rows for Events.record. */
export const backlinkEventRows = (sql: SqlClient.SqlClient) => ({
  /** backlink.acquired for each backlink of `ids`, as it is now. */
  acquired: (ids: ReadonlyArray<BacklinkId>): EventRows => sql`
    select s.account_id, b.site_id, ${backlinkJson(sql)} as data
    from backlinks b join sites s on s.id = b.site_id
    where b.id in ${sql.in(ids)}`
})
