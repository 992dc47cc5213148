import { FileSystem } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config.js"
import { DatabaseLive } from "../Database.js"

/** PGlite opens `DATA_DIR/pg` but does not create `DATA_DIR` itself on a fresh checkout. */
const DataDirLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(config.dataDir, { recursive: true })
  })
)

/** The configured database for the `cbs` commands: `DatabaseLive`, with the embedded database's folder made first. */
export const CliDatabaseLive = DatabaseLive.pipe(Layer.provide(DataDirLive))
