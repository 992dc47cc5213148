import { Command } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"

export const migrateCommand = Command.make(
  "migrate",
  { json: jsonOption },
  loadAndPrint(
    () => import("./Run/Migrate.js"),
    (run) => run.migrateDatabase
  )
).pipe(Command.withDescription("Apply pending database migrations (serve also does, at start)."))
