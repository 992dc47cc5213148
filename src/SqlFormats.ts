/**
 * A `timestamptz` column as the interface writes timestamps: RFC 3339 UTC with second precision
 * (`2026-11-03T09:30:00Z`), whatever the session's time zone. `column` is always a constant column name.
 */
export const rfc3339 = (column: string): string => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
