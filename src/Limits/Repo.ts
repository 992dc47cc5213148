import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { AccountId } from "../Domain/Ids.js"
import { countRequestSql, editsUsedSql } from "./Counters.js"

const Count = Schema.Struct({ count: Schema.Number })
const CountAndEdits = Schema.Struct({ count: Schema.Number, edits: Schema.Number })

export class LimitsRepo extends Effect.Service<LimitsRepo>()("Limits/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Counts one request in its window, atomically; returns the window's count including it, and in the same
     * statement the changes `accountId` has made on `day`.
     */
    const countRequest = (credential: string, windowStart: string, accountId: AccountId, day: string) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: CountAndEdits,
        execute: () => sql`
          with counted as (${countRequestSql(sql, credential, windowStart)})
          select count, ${editsUsedSql(sql, accountId, day)} as edits from counted`
      })(undefined).pipe(Effect.orDie)

    /** Counts one event under `key` in its window, atomically; the window's count including it. */
    const countUnder = (key: string, windowStart: string) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Count,
        execute: () => countRequestSql(sql, key, windowStart)
      })(undefined).pipe(
        Effect.map((row) => row.count),
        Effect.orDie
      )

    /**
     * Takes one edit from an account's daily quota, atomically: the row lock of the upsert makes concurrent edits
     * queue, and the `where` refuses once the quota is used. None when the quota is exhausted. Runs inside the
     * edit's transaction, so a rejected edit gives its unit back.
     */
    const takeEdit = (accountId: AccountId, day: string, limit: number) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: Count,
        execute: () => sql`
          insert into edit_counters as c (account_id, day, count)
          values (${accountId}, ${day}::date, 1)
          on conflict (account_id, day) do update set count = c.count + 1 where c.count < ${limit}
          returning count`
      })(undefined).pipe(Effect.orDie)

    /** How many changes an account has made on `day` (read only: a preview judges the quota without using it). */
    const editsUsed = (accountId: AccountId, day: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: Count,
        execute: () => sql`select count from edit_counters where account_id = ${accountId} and day = ${day}::date`
      })(undefined).pipe(
        Effect.map((row) => (row._tag === "Some" ? row.value.count : 0)),
        Effect.orDie
      )

    /** Deletes a credential's earlier windows (along the primary key). */
    const deleteEarlierWindows = (credential: string, windowStart: string) =>
      sql`delete from request_counters where credential = ${credential} and window_start < ${windowStart}::timestamptz`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Deletes every window that started before `before`, whoever it belongs to. */
    const pruneRequestCounters = (before: string) =>
      sql`delete from request_counters where window_start < ${before}::timestamptz`.pipe(Effect.asVoid, Effect.orDie)

    return { countRequest, countUnder, takeEdit, editsUsed, deleteEarlierWindows, pruneRequestCounters }
  })
}) {}
