import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { TEST_POOL_SIZE } from "./TestDatabase.js"

/**
 * Sets the session time zone on every connection of the pool (TEST_POOL_SIZE): each one is reserved and held until all are, so that
 * each is a different connection, however fast or slow the statements run.
 */
const setEverySession = (zone: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(
      Array.from({ length: TEST_POOL_SIZE }),
      () =>
        Effect.flatMap(sql.reserve, (connection) =>
          connection.executeRaw("select set_config('TimeZone', $1, false)", [zone])
        ),
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.scoped, Effect.orDie)
  )

/** Runs `effect` with every pooled database session set to `timeZone`, then sets them back to UTC. */
export const withSessionTimeZone = <A, E, R>(timeZone: string, effect: Effect.Effect<A, E, R>) =>
  Effect.zipRight(setEverySession(timeZone), effect.pipe(Effect.ensuring(setEverySession("UTC"))))
