import { Effect } from "effect"
import { embeddedServer, layerEmbeddedClient, migrate } from "./Database.js"

/**
 * Creates the embedded database template in `dir`: initdb and every migration (scripts/build.js runs this once per
 * build; see EmbeddedTemplate.ts).
 */
export const buildTemplate = (dir: string): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function* () {
      // WAL segments of 1 MB rather than 16: every new data directory copies the template, WAL included.
      const server = yield* embeddedServer({ dataDir: dir, initdb: ["--wal-segsize=1"] })
      yield* migrate.pipe(Effect.provide(layerEmbeddedClient(server)))
    }).pipe(Effect.scoped, Effect.orDie)
  )
