import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { migrate } from "../Database.js"
import { CliRepo } from "./Repo.js"

const migrationName = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

export const migrateCommand = Command.make("migrate", {}, () =>
  Effect.gen(function* () {
    const repo = yield* CliRepo
    // The database layer has already migrated when it was built (as `serve` does); this applies anything still
    // pending and reports where the database stands.
    const applied = yield* migrate
    for (const [id, name] of applied) yield* Console.log(`Applied ${migrationName(id, name)}`)
    const all = yield* repo.appliedMigrations
    const latest = all.at(-1)
    yield* Console.log(
      latest === undefined
        ? "No migrations are recorded."
        : `Database is up to date: ${all.length} migration${all.length === 1 ? "" : "s"} applied, the latest ${migrationName(latest.migration_id, latest.name)}.`
    )
  }).pipe(Effect.provide(CliRepo.Default))
).pipe(Command.withDescription("Apply pending database migrations (serve also does, at start)."))
