import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

/**
 * A `timestamptz` column as the interface writes timestamps: RFC 3339 UTC with second precision
 * (`2026-11-03T09:30:00Z`), whatever the session's time zone. `column` is always a constant column name.
 */
export const rfc3339 = (column: string): string => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

/**
 * Conditions keeping the `timestamptz` `column` within the inclusive UTC days `from`..`to` (`YYYY-MM-DD`, years
 * 0001-9999); an end that is not given leaves that side open. The database does the day arithmetic: the day after
 * 9999-12-31 is a fine `date` and instant there, while in JavaScript and in ISO text it needs a five-digit year.
 * The instants are taken at UTC whatever the session's time zone, and the bounds are constants, so a range scan on
 * an index over `column` still applies. `column` is always a constant column name.
 */
export const withinUtcDays = (
  sql: SqlClient.SqlClient,
  column: string,
  range: { readonly from?: string | undefined; readonly to?: string | undefined }
): Array<Fragment> => [
  ...(range.from === undefined ? [] : [sql`${sql(column)} >= ${range.from}::date::timestamp at time zone 'UTC'`]),
  ...(range.to === undefined ? [] : [sql`${sql(column)} < (${range.to}::date + 1)::timestamp at time zone 'UTC'`])
]

/**
 * The same inclusive UTC days as `withinUtcDays`, on a `date` column that holds the UTC day of such a timestamp
 * (`(ts at time zone 'UTC')::date`, as the day counts of migrations/0009_day_counts.sql keep it): a timestamp
 * passes `withinUtcDays` exactly when its day passes these, and a null day (no timestamp) passes only when neither
 * end is given. `column` is always a constant column name.
 */
export const withinDays = (
  sql: SqlClient.SqlClient,
  column: string,
  range: { readonly from?: string | undefined; readonly to?: string | undefined }
): Array<Fragment> => [
  ...(range.from === undefined ? [] : [sql`${sql(column)} >= ${range.from}::date`]),
  ...(range.to === undefined ? [] : [sql`${sql(column)} <= ${range.to}::date`])
]

/**
 * The value of `alias.field` as the interface shows it: a timestamp (one of `timestamps`) written as `rfc3339` writes
 * it, anything else as it is. `alias` and the names are constants.
 */
const shownValue = (sql: SqlClient.SqlClient, alias: string, field: string, timestamps: ReadonlyArray<string>) =>
  timestamps.includes(field) ? sql.unsafe(rfc3339(`${alias}.${field}`)) : sql`${sql(alias)}.${sql(field)}`

/**
 * Row `alias` as a JSON object of `fields` (each a column of the same name), the timestamps among them (`timestamps`)
 * written as `rfc3339` writes them: a record as the interface shows it, built by the database. `alias` and the names
 * are constants.
 */
export const recordJson = (
  sql: SqlClient.SqlClient,
  alias: string,
  fields: ReadonlyArray<string>,
  timestamps: ReadonlyArray<string>
): Fragment =>
  sql`jsonb_build_object(${sql.csv(fields.map((field) => sql`${field}::text, ${shownValue(sql, alias, field, timestamps)}`))})`

/** Row `alias`'s `fields` as select-list columns of the same names, the timestamps written as `recordJson` does. */
export const recordColumns = (
  sql: SqlClient.SqlClient,
  alias: string,
  fields: ReadonlyArray<string>,
  timestamps: ReadonlyArray<string>
): Fragment => sql.csv(fields.map((field) => sql`${shownValue(sql, alias, field, timestamps)} as ${sql(field)}`))
