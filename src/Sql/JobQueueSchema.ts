import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import PgBoss from "pg-boss"

/** The schema of the job queue's tables (src/Jobs/Jobs.ts). */
export const JOB_QUEUE_SCHEMA = "pgboss"

/**
 * Installs the job queue's tables with the migrations, when they are not there yet: so that a migrated database (the
 * embedded template, a test's copy, `cbs migrate`) is ready for the queue, and pg-boss's start only checks its
 * version. pg-boss's own plan takes its advisory lock; an instance that lost the race finds the tables installed.
 */
export const installJobQueue = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const installed = sql<{ readonly found: boolean }>`
    select to_regclass(${`${JOB_QUEUE_SCHEMA}.version`}) is not null as found`.pipe(
    Effect.map(([row]) => row?.found === true)
  )
  if (yield* installed) return
  yield* sql
    .unsafe(PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA))
    .raw.pipe(
      Effect.catchAll((error) => Effect.flatMap(installed, (found) => (found ? Effect.void : Effect.fail(error))))
    )
})
