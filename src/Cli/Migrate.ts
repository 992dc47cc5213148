import { Command } from "@effect/cli"
import { Effect } from "effect"
import { jsonOption, load, printResult } from "./Output.js"

export const migrateCommand = Command.make("migrate", { json: jsonOption }, (args) =>
  load(() => import("./Run/Migrate.js")).pipe(
    Effect.flatMap((run) => run.migrateDatabase),
    printResult(args.json)
  )
).pipe(Command.withDescription("Apply pending database migrations (serve also does, at start)."))
