import { SqlError } from "@effect/sql/SqlError"
import { Effect, Redacted } from "effect"
import pg from "pg"

/** The statement @effect/sql-pg sends, on another connection, to cancel an interrupted query. */
const cancelStatement = /^SELECT pg_cancel_backend\((\d+)\)$/

/** node-postgres keeps the server process id of a connection here (not in its public types). */
const processIdOf = (client: pg.PoolClient): number | undefined =>
  (client as pg.PoolClient & { readonly processID?: number }).processID

/**
 * A node-postgres pool on which an interrupted query never cancels another request's statement.
 *
 * When a request is interrupted (its client went away), @effect/sql-pg cancels its statement with
 * `pg_cancel_backend` from another connection, but the interrupted connection goes back to the pool as soon as the
 * statement ends: a cancel still on its way then lands on the next request's statement on that connection, which
 * fails with "canceling statement due to user request" (Effect-TS/effect#8068). Here a connection is marked when a
 * cancel for it is asked for, before it is sent, and a marked connection is closed rather than pooled when it is
 * released, so that what ends its statement can only land on a connection no one else will use. A cancel for a
 * connection already back in the pool is not sent.
 *
 * What is sent ends the connection's session (`pg_terminate_backend`) rather than its statement: a cancel that
 * reaches the server before the statement starts (the statement still on its way, or queued behind another) is lost,
 * and the statement then waits on its lock for as long as the lock is held, its transaction holding its own locks (an
 * idempotency key among them) all that while. Ending the session always ends the transaction, and the connection was
 * not going to be used again anyway.
 */
export const makePgPool = (config: pg.PoolConfig): pg.Pool => {
  const pool = new pg.Pool(config)
  // A pooled connection that is idle when PostgreSQL ends it (a restart, pg_terminate_backend, a dropped database) is
  // reported as an 'error' of the pool, and an 'error' no one listens to ends the process. The pool has already
  // dropped that connection, and the next statement opens a new one: nothing is left to do.
  pool.on("error", () => {})
  const leased = new Map<number, pg.PoolClient>()
  const interrupted = new WeakSet<pg.PoolClient>()

  const connect = pool.connect.bind(pool)
  const lease = (
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void
  ) =>
    connect((err, client, release) => {
      if (err !== undefined || client === undefined) return callback(err, client, release)
      const id = processIdOf(client)
      if (id !== undefined) leased.set(id, client)
      const done = (cause?: unknown) => {
        if (id !== undefined && leased.get(id) === client) leased.delete(id)
        release(
          cause ?? (interrupted.has(client) ? new Error("The connection's statement was interrupted.") : undefined)
        )
      }
      client.release = done
      callback(undefined, client, done)
    })
  pool.connect = ((callback?: Parameters<typeof lease>[0]) =>
    callback === undefined
      ? new Promise<pg.PoolClient>((resolve, reject) =>
          lease((err, client) => (err !== undefined || client === undefined ? reject(err) : resolve(client)))
        )
      : lease(callback)) as typeof pool.connect

  const query = pool.query.bind(pool)
  pool.query = ((text: unknown, ...rest: Array<unknown>) => {
    const send = query as (...args: Array<unknown>) => unknown
    const cancel = typeof text === "string" ? cancelStatement.exec(text) : null
    if (cancel === null) return send(text, ...rest)
    const processId = Number(cancel[1])
    const client = leased.get(processId)
    if (client === undefined) {
      // The connection is back in the pool already: its statement has ended, and there is nothing left to cancel.
      const callback = rest.find((arg) => typeof arg === "function") as ((err?: Error) => void) | undefined
      if (callback === undefined) return Promise.resolve({ rows: [], rowCount: 0 })
      queueMicrotask(() => callback())
      return undefined
    }
    // Marked before the session is ended, so that the connection is closed, not pooled, however late that lands.
    interrupted.add(client)
    return send(`SELECT pg_terminate_backend(${processId})`, ...rest)
  }) as typeof pool.query
  return pool
}

/** The pool for `PgClient.layerFromPool`, checked with one query, and ended with the scope. */
export const acquirePgPool = (url: Redacted.Redacted, maxConnections: number, types: pg.CustomTypesConfig) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      makePgPool({
        connectionString: Redacted.value(url),
        max: maxConnections,
        application_name: "content-backlink-service",
        types
      })
    ),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () =>
            new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        })
      )
    )
  )
