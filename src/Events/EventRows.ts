import type { Fragment } from "@effect/sql/Statement"

/**
 * The events of a change, as a query of the feature that made it: one row per event, with the event's `account_id`,
 * `site_id` and `data` (the record as the interface shows it, as JSON). Features write theirs (Articles/EventRows.ts,
 * Backlinks/EventRows.ts) and hand them to Events.record.
 */
export type EventRows = Fragment
