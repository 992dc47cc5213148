import { Console, Effect } from "effect"
import { AuditLog } from "../../Audit/AuditLog.js"
import { migrate } from "../../Sql/Database.js"
import type { Result } from "../Output.js"
import { CliRepo } from "../Repo.js"

const migrationName = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

/** Rows moved between two progress lines of the call log's move into day partitions. */
const PROGRESS_EVERY = 1_000_000

export const migrateDatabase = Effect.gen(function* () {
  const repo = yield* CliRepo
  const audit = yield* AuditLog
  // The database layer has already migrated when it was built (as `serve` does); this applies anything still
  // pending and reports where the database stands.
  const applied = (yield* migrate).map(([id, name]) => migrationName(id, name))
  // A call log from before day partitions is moved into them here, a batch per transaction, so that the service
  // starts on a converted log (it would otherwise finish the move in the background).
  let reported = 0
  const moved = yield* audit.convert((sofar) =>
    sofar - reported >= PROGRESS_EVERY
      ? Effect.zipRight(
          Effect.sync(() => {
            reported = sofar
          }),
          Console.error(`Moved ${sofar} calls into the call log's day partitions…`)
        )
      : Effect.void
  )
  const all = yield* repo.appliedMigrations
  const last = all.at(-1)
  const latest = last === undefined ? null : migrationName(last.migration_id, last.name)
  return {
    text: [
      ...applied.map((name) => `Applied ${name}`),
      ...(moved > 0 ? [`Moved ${moved} call${moved === 1 ? "" : "s"} of the call log into day partitions.`] : []),
      latest === null
        ? "No migrations are recorded."
        : `Database is up to date: ${all.length} migration${all.length === 1 ? "" : "s"} applied, the latest ${latest}.`
    ],
    json: { applied, migrations: all.length, latest, moved_calls: moved }
  } satisfies Result
}).pipe(Effect.provide([CliRepo.Default, AuditLog.Default]))
