import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Migrator from "@effect/sql/Migrator"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import type { PGlite } from "@electric-sql/pglite"
import { type ConfigError, type Context, Effect, Layer, Option, type Redacted, type Scope } from "effect"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { DatabaseInUse, lockDataDir, publishAddress, runningHolder } from "./DataDirLock.js"
import { startFromTemplate } from "./EmbeddedTemplate.js"
import { installJobQueue } from "./JobQueueSchema.js"
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

/** Applies pending migrations, and installs the job queue's tables; returns the migrations it applied. */
export const migrate = Migrator.make({})({ loader: sqlFileLoader, table: "schema_migrations" }).pipe(
  Effect.tap(() => installJobQueue),
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
    // Loaded here, not with this module: a command on PostgreSQL, or beside a running server, never needs it.
    const [{ PGlite }, { serveSessions }, { unaccent }] = yield* Effect.promise(() =>
      Promise.all([
        import("@electric-sql/pglite"),
        import("./EmbeddedSessions.js"),
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
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise(() => serveSessions(db, "127.0.0.1")),
      (server) => Effect.promise(() => server.stop())
    )
    return { db, host: server.host, port: server.port }
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

/** A client's view of the database: the layer built, and migrated. */
const migrated = <E, R>(layer: Layer.Layer<PgClient.PgClient | SqlClient, E, R>) =>
  Layer.build(layer).pipe(Effect.tap((context) => migrate.pipe(Effect.provide(context), Effect.orDie)))

/**
 * The embedded database in `DATA_DIR/pg`, opened by this process once it holds `DATA_DIR`'s lock, and closed before
 * the lock is given back. A new one starts as a copy of the migrated template that the build made, when there is
 * one. Once migrated, `cbs serve` publishes in its lock where it serves the database, for the commands run beside it.
 */
const openOwned = (dataDir: string, command: string, say: Say) =>
  Effect.gen(function* () {
    const pgDir = `${dataDir.replace(/\/+$/, "")}/pg`
    const fresh = yield* startFromTemplate(pgDir, say)
    if (fresh === "none") yield* say(`Creating the embedded database in ${pgDir} (about 10 s, once)…`)
    const server = yield* embeddedServer({ dataDir: pgDir }).pipe(Effect.orDie)
    const context = yield* migrated(layerEmbeddedClient(server))
    if (command === "serve") yield* publishAddress(dataDir, { host: server.host, port: server.port })
    return context
  })

/** How long a command waits, 100 ms at a time, for a `cbs serve` holding the database to publish where it serves. */
const WAIT_STEPS = 1200

/**
 * The embedded database for the `cbs` command `command`. The first process to take `DATA_DIR`'s lock opens it; a
 * command run while `cbs serve` holds it connects to that server instead, over the wire protocol, as a client of
 * PostgreSQL would (waiting while the server opens and migrates it). Anything else that holds it, or a second
 * `serve`, makes the command fail at once with `DatabaseInUse`.
 */
const layerEmbeddedShared = (dataDir: string, command: string, say: Say) => {
  const open = (
    step: number
  ): Effect.Effect<
    Context.Context<PgClient.PgClient | SqlClient>,
    DatabaseInUse | PlatformError | SqlError | ConfigError.ConfigError,
    Scope.Scope | FileSystem.FileSystem | Path.Path
  > =>
    lockDataDir(dataDir, command).pipe(
      Effect.zipRight(Effect.suspend(() => openOwned(dataDir, command, say))),
      Effect.catchTag("DatabaseInUse", (inUse) => {
        const holder = inUse.holder
        if (holder === undefined || holder.command !== "serve" || command === "serve") return Effect.fail(inUse)
        if (holder.address !== undefined) {
          const { host, port } = holder.address
          return migrated(layerEmbeddedClient({ host, port })).pipe(
            Effect.catchTag("SqlError", (error) =>
              // A server that stopped meanwhile has given the database back: take it, or wait for the next one.
              Effect.flatMap(runningHolder(dataDir), (now) =>
                Option.exists(now, (h) => h.pid === holder.pid && h.address !== undefined)
                  ? new DatabaseInUse({
                      message: `the embedded database in ${dataDir} is held by cbs serve (pid ${holder.pid}), which does not answer at ${host}:${port} (${error.message}); stop it first`
                    })
                  : open(step)
              )
            )
          )
        }
        if (step >= WAIT_STEPS) return Effect.fail(inUse)
        return (
          step === 0 ? say(`Waiting for cbs serve (pid ${holder.pid}) to open the embedded database…`) : Effect.void
        ).pipe(Effect.zipRight(Effect.sleep("100 millis")), Effect.zipRight(Effect.suspend(() => open(step + 1))))
      })
    )
  return Layer.unwrapScoped(Effect.map(open(0), Layer.succeedContext)).pipe(Layer.provide(NodeContext.layer))
}

/**
 * The database the configuration selects for the `cbs` command `command`: `DATABASE_URL`, or the embedded one in
 * `DATA_DIR/pg` (see `layerEmbeddedShared`; this fails with `DatabaseInUse` when it cannot have it). Migrated.
 */
export const DatabaseLive = (command: string, say: Say = () => Effect.void) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      return Option.match(config.databaseUrl, {
        onSome: (url) => Layer.unwrapScoped(Effect.map(migrated(layerPostgres(url)), Layer.succeedContext)),
        onNone: () => layerEmbeddedShared(config.dataDir, command, say)
      })
    })
  )

export type Database = PgClient.PgClient | SqlClient
