import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

/** The few queries the command line needs for itself. */
export class CliRepo extends Effect.Service<CliRepo>()("Cli/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const hasAccounts = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ present: Schema.Boolean }),
      execute: () => sql`select exists (select 1 from accounts) as present`
    })

    // The migrator's own table; its rows are written by @effect/sql's Migrator.
    const appliedMigrations = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ migration_id: Schema.Number, name: Schema.String }),
      execute: () => sql`select migration_id, name from schema_migrations order by migration_id`
    })

    return {
      hasAccounts: hasAccounts(undefined).pipe(
        Effect.map((row) => row.present),
        Effect.orDie
      ),
      appliedMigrations: appliedMigrations(undefined).pipe(Effect.orDie)
    }
  })
}) {}
