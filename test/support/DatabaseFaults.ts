import { createServer, type Socket, connect as tcpConnect } from "node:net"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { embeddedServer, layerEmbeddedClient } from "../../src/Sql/Database.js"
import { embeddedTemplateCopy, TestDatabaseLive } from "./TestDatabase.js"
import { testServerOn } from "./TestServer.js"

/**
 * Breaks the service's connections to its database, as a database that ends them would: returns how many it
 * ended. The service must carry on with new connections.
 */
export class DatabaseFaults extends Context.Tag("test/DatabaseFaults")<
  DatabaseFaults,
  { readonly breakConnections: Effect.Effect<number> }
>() {}

export const onPostgres = (process.env["DATABASE_URL"] ?? "") !== ""

/** PostgreSQL: every other backend of the test's database is terminated, as an operator or a failover would. */
const terminateBackends = Layer.effect(
  DatabaseFaults,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    breakConnections: sql<{ n: number }>`select count(*)::int as n from (
        select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()) as ended`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      // The statement itself may land on a connection ended by the fault before: then it ended nothing.
      Effect.orElseSucceed(() => 0)
    )
  }))
)

/**
 * The embedded database cannot end a session (one session serves every connection), so the service reaches it
 * through a TCP relay whose connections are closed: the service sees what a terminated backend looks like on the
 * wire (the connection closed under it), and the embedded server rolls back the transaction that connection had open.
 */
const embeddedBehindRelay = Effect.gen(function* () {
  const database = yield* embeddedServer({ dataDir: yield* embeddedTemplateCopy }).pipe(Effect.orDie)
  const pairs = new Set<readonly [Socket, Socket]>()
  const relay = createServer((client) => {
    const upstream = tcpConnect(database.port, database.host)
    const pair = [client, upstream] as const
    pairs.add(pair)
    const close = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", close).on("close", close)
    upstream.on("error", close).on("close", close)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => {
      relay.listen(0, "127.0.0.1", () => {
        const address = relay.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.sync(() => {
        for (const [client, upstream] of pairs) {
          client.destroy()
          upstream.destroy()
        }
        relay.close()
      })
  )
  const breakConnections = Effect.sync(() => {
    const ended = pairs.size
    for (const [client, upstream] of [...pairs]) {
      client.destroy()
      upstream.destroy()
    }
    return ended
  })
  return { client: layerEmbeddedClient({ host: "127.0.0.1", port }), breakConnections }
})

/** The test server on a fresh database, with a way to break its database connections (see `DatabaseFaults`). */
export const FaultyServerLive = onPostgres
  ? Layer.provideMerge(terminateBackends, testServerOn(TestDatabaseLive))
  : Layer.unwrapScoped(
      Effect.map(embeddedBehindRelay, ({ client, breakConnections }) =>
        Layer.merge(testServerOn(client), Layer.succeed(DatabaseFaults, { breakConnections }))
      )
    )
