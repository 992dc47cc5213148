import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, ArticleId, UserId } from "../Domain/Ids.js"

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

    // The article's account and that account's first user (by id), whom an operator's rewrite is recorded as.
    const articleOwner = SqlSchema.findOne({
      Request: ArticleId,
      Result: Schema.Struct({ account_id: AccountId, user_id: UserId }),
      execute: (id) => sql`
        select s.account_id, u.id as user_id
        from articles a
        join sites s on s.id = a.site_id
        join users u on u.account_id = s.account_id
        where a.id = ${id}
        order by u.id
        limit 1`
    })

    return {
      articleOwner: (id: ArticleId) => articleOwner(id).pipe(Effect.orDie),
      hasAccounts: hasAccounts(undefined).pipe(
        Effect.map((row) => row.present),
        Effect.orDie
      ),
      appliedMigrations: appliedMigrations(undefined).pipe(Effect.orDie)
    }
  })
}) {}
