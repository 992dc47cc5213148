import type { SqlClient, Statement } from "@effect/sql"

/**
 * The statements that count requests and read the day's changes, in one place for every statement that needs them:
 * a request alone (Limits/Repo.countRequest), and the lookups of an API key and of an access token, which count the
 * request they authenticate in the same round trip.
 */

/**
 * Counts one request of `credential` (a counter key, or an expression of the rows of `from`) in the window that
 * starts at `windowStart`, atomically; returns the window's count including it (no row when `from` has none).
 */
export const countRequestSql = (
  sql: SqlClient.SqlClient,
  credential: Statement.Fragment | string,
  windowStart: string,
  from: Statement.Fragment = sql``
) => sql`
  insert into request_counters as c (credential, window_start, count)
  select ${credential}, ${windowStart}::timestamptz, 1 ${from}
  on conflict (credential, window_start) do update set count = c.count + 1
  returning count`

/** The changes the account `accountId` (a value, or an expression) has made on `day`, 0 when none. */
export const editsUsedSql = (sql: SqlClient.SqlClient, accountId: Statement.Fragment | number, day: string) =>
  sql`coalesce((select e.count from edit_counters e where e.account_id = ${accountId} and e.day = ${day}::date), 0)`
