import type { Fragment } from "@effect/sql/Statement"

/**
 * The events of a change, as a query of the feature that made it (for Events.record): one row per event, with the
 * event's `account_id`, `site_id` and `data` (the record as the interface shows it, as JSON).
 */
export type EventRows = Fragment
