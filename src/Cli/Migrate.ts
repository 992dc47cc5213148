import { commandsIn } from "./Commands.js"

export const migrateCommand = commandsIn(() => import("./Run/Migrate.js"))(
  "migrate",
  "Apply pending database migrations (serve also does, at start).",
  {},
  (run) => run.migrateDatabase
)
