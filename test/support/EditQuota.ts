import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { AccountId } from "../../src/Domain/Ids.js"

/** The UTC day of the (test) clock's now, `YYYY-MM-DD`. */
export const today = Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString().slice(0, 10))

/** Sets the account's used edits for `day` (default: today) directly in the database. */
export const useEdits = (accountId: AccountId, count: number, day?: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const on = day ?? (yield* today)
    yield* sql`insert into edit_counters (account_id, day, count) values (${accountId}, ${on}::date, ${count})
      on conflict (account_id, day) do update set count = excluded.count`.pipe(Effect.orDie)
  })

/** The account's used edits on `day` (default: today); 0 when it has none. */
export const editsUsed = (accountId: AccountId, day?: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const on = day ?? (yield* today)
    const rows = yield* sql<{ count: number }>`
      select count from edit_counters where account_id = ${accountId} and day = ${on}::date`.pipe(Effect.orDie)
    return rows[0]?.count ?? 0
  })
