import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import * as Migrator from "@effect/sql/Migrator"
import type { SqlClient } from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import type { PGlite } from "@electric-sql/pglite"
import { Effect, Layer, Option, type Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { lockDataDir } from "./DataDirLock.js"
import { startFromTemplate } from "./EmbeddedTemplate.js"
import { packagePath } from "./PackageRoot.js"
import { acquirePgPool } from "./PgPool.js"

const migrationsDirectory = packagePath("migrations")

/**
 * Loads `migrations/NNNN_snake_name.sql`. Each file may hold several statements; all pending files run in one
 * transaction, so a failing migration leaves the database as it was.
 */
export const sqlFileLoader: Migrator.Loader<FileSystem.FileSystem | Path.Path> = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = migrationsDirectory
  const files = yield* fs.readDirectory(dir)
  const migrations: Array<Migrator.ResolvedMigration> = []
  for (const file of files) {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file)
    if (match === null) continue
    const text = yield* fs.readFileString(path.join(dir, file))
    migrations.push([
      Number(match[1]),
      match[2]!,
      // The loader yields the migration itself, as an import of a migration module would.
      Effect.succeed(Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(text).raw))
    ])
  }
  return migrations.sort((a, b) => a[0] - b[0])
}).pipe(
  Effect.mapError((cause) => new Migrator.MigrationError({ reason: "import-error", message: String(cause), cause }))
)

/** Applies pending migrations; returns the ones it applied. */
export const migrate = Migrator.make({})({ loader: sqlFileLoader, table: "schema_migrations" }).pipe(
  Effect.provide(NodeContext.layer)
)

/**
 * Ids are `bigint` and `count(*)` is `int8`; node-postgres returns those as strings. Every id the service hands out
 * is far below 2^53, so they are read as numbers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"]
}

/**
 * A client for a real PostgreSQL server, on a pool where an interrupted request's query cancel cannot reach another
 * request's statement (see `makePgPool`).
 */
export const layerPostgres = (url: Redacted.Redacted, maxConnections = 10) =>
  PgClient.layerFromPool({
    acquire: acquirePgPool(url, maxConnections, types),
    applicationName: "content-backlink-service",
    types
  })

/**
 * An embedded PostgreSQL (PGlite) served over the wire protocol on a free loopback port, so that the same
 * `@effect/sql-pg` code runs on it. `dataDir` undefined keeps the data in memory; `loadDataDir` starts from a dump.
 */
export const embeddedServer = (options: {
  readonly dataDir?: string | undefined
  readonly loadDataDir?: Blob
  /** Arguments for initdb, when the database is new. */
  readonly initdb?: ReadonlyArray<string>
}) =>
  Effect.gen(function* () {
    // Loaded here, not with this module: a command on PostgreSQL never needs it.
    const [{ PGlite }, { PGLiteSocketServer }, { unaccent }] = yield* Effect.promise(() =>
      Promise.all([
        import("@electric-sql/pglite"),
        import("@electric-sql/pglite-socket"),
        import("@electric-sql/pglite/contrib/unaccent")
      ])
    )
    const db: PGlite = yield* Effect.acquireRelease(
      Effect.tryPromise(() =>
        PGlite.create({
          // The article search's accent folding (migrations/0017_article_search.sql), as PostgreSQL's contrib has it.
          extensions: { unaccent },
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
          ...(options.initdb === undefined ? {} : { initDbStartParams: [...options.initdb] })
        })
      ),
      (db) => Effect.promise(() => db.close())
    )
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 })
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => server.start()),
      () => Effect.promise(() => server.stop())
    )
    const [host, port] = server.getServerConn().split(":")
    return { db, host: host!, port: Number(port) }
  })

/** A client for an embedded server. PGlite has one session shared by every connection: the pool is exactly one. */
export const layerEmbeddedClient = (server: { readonly host: string; readonly port: number }) =>
  PgClient.layer({
    host: server.host,
    port: server.port,
    database: "postgres",
    username: "postgres",
    maxConnections: 1,
    minConnections: 1,
    types
  })

export const layerEmbedded = (options: { readonly dataDir?: string | undefined; readonly loadDataDir?: Blob }) =>
  Layer.unwrapScoped(Effect.map(embeddedServer(options), layerEmbeddedClient).pipe(Effect.orDie))

/** Tells the person who started a command what it is doing while it works (a line on stderr, say). */
export type Say = (line: string) => Effect.Effect<void>

/**
 * The embedded database in `DATA_DIR/pg`, opened only once this process holds `DATA_DIR`'s lock, and closed before
 * the lock is given back. `command` names the `cbs` command opening it, for whoever finds it in use. A new one
 * starts as a copy of the migrated template that the build made, when there is one.
 */
const layerEmbeddedOwned = (dataDir: string, command: string, say: Say) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      yield* lockDataDir(dataDir, command)
      const pgDir = `${dataDir.replace(/\/+$/, "")}/pg`
      const fresh = yield* startFromTemplate(pgDir, say)
      if (fresh === "none") yield* say(`Creating the embedded database in ${pgDir} (about 10 s, once)…`)
      const server = yield* embeddedServer({ dataDir: pgDir }).pipe(Effect.orDie)
      return layerEmbeddedClient(server)
    })
  ).pipe(Layer.provide(NodeContext.layer))

/**
 * The database the configuration selects for the `cbs` command `command`: `DATABASE_URL`, or the embedded one in
 * `DATA_DIR/pg`, which one process at a time may open (else this fails with `DatabaseInUse`). Migrated.
 */
export const DatabaseLive = (command: string, say: Say = () => Effect.void) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      return Option.match(config.databaseUrl, {
        onSome: (url) => layerPostgres(url),
        onNone: () => layerEmbeddedOwned(config.dataDir, command, say)
      })
    })
  ).pipe(Layer.tap((context) => migrate.pipe(Effect.provide(context), Effect.orDie)))

export type Database = PgClient.PgClient | SqlClient
