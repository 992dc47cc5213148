import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Whose attempts a slot counts: an e-mail address (lower-cased) or a client address, for sign-in's password checks or
 * for reset mails (`reset_`).
 */
export type SlotKind = "email" | "ip" | "reset_email" | "reset_ip"

/**
 * Sign-in attempt slots: per e-mail and per client address, the times of the attempts that still hold one. Times are
 * the service's clock (ISO strings). Statements that take a row lock run inside the caller's transaction.
 */
export class SlotsRepo extends Effect.Service<SlotsRepo>()("SignIn/SlotsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes a slot at `now` when fewer than `max` are held after `since`, dropping older ones; whether it did. One
     * statement: the upsert locks the row and its condition sees the latest version, so parallel takers queue and
     * no more than `max` succeed.
     */
    const take = (slot: {
      readonly kind: SlotKind
      readonly key: string
      readonly now: string
      readonly since: string
      readonly max: number
    }) =>
      sql<{ taken: boolean }>`
        insert into sign_in_slots (kind, key, taken, last_taken_at)
        values (${slot.kind}, ${slot.key}, array[${slot.now}::timestamptz], ${slot.now}::timestamptz)
        on conflict (kind, key) do update
          set taken = array(
                select t from unnest(sign_in_slots.taken) t where t > ${slot.since}::timestamptz order by t
              ) || ${slot.now}::timestamptz,
              last_taken_at = ${slot.now}::timestamptz
          where (select count(*) from unnest(sign_in_slots.taken) t where t > ${slot.since}::timestamptz) < ${slot.max}
        returning true as taken`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    /** Gives back one slot taken at `at` (a right password); the other slots stay held. */
    const giveBack = (slot: { readonly kind: SlotKind; readonly key: string; readonly at: string }) =>
      sql`
        update sign_in_slots
        set taken = taken[:array_position(taken, ${slot.at}::timestamptz) - 1]
          || taken[array_position(taken, ${slot.at}::timestamptz) + 1:]
        where kind = ${slot.kind} and key = ${slot.key} and array_position(taken, ${slot.at}::timestamptz) is not null`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Deletes the rows whose last slot was taken before `before` (along their time index). */
    const prune = (before: string) =>
      sql`delete from sign_in_slots where last_taken_at < ${before}::timestamptz`.pipe(Effect.asVoid, Effect.orDie)

    return { take, giveBack, prune }
  })
}) {}
