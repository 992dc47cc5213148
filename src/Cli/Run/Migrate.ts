import { Effect } from "effect"
import { migrate } from "../../Database.js"
import type { Result } from "../Output.js"
import { CliRepo } from "../Repo.js"

const migrationName = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

export const migrateDatabase = Effect.gen(function* () {
  const repo = yield* CliRepo
  // The database layer has already migrated when it was built (as `serve` does); this applies anything still
  // pending and reports where the database stands.
  const applied = (yield* migrate).map(([id, name]) => migrationName(id, name))
  const all = yield* repo.appliedMigrations
  const last = all.at(-1)
  const latest = last === undefined ? null : migrationName(last.migration_id, last.name)
  return {
    text: [
      ...applied.map((name) => `Applied ${name}`),
      latest === null
        ? "No migrations are recorded."
        : `Database is up to date: ${all.length} migration${all.length === 1 ? "" : "s"} applied, the latest ${latest}.`
    ],
    json: { applied, migrations: all.length, latest }
  } satisfies Result
}).pipe(Effect.provide(CliRepo.Default))
