import { createServer, type Socket, connect as tcpConnect } from "node:net"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import { embeddedServer, layerEmbeddedClient, layerPostgres } from "../../src/Sql/Database.js"
import { embeddedTemplateCopy, freshPostgresUrl, TEST_POOL_SIZE } from "./TestDatabase.js"
import { testServerOn } from "./TestServer.js"

/**
 * Breaks the service's connections to its database, as a database that ends them would: returns how many it
 * ended. The service must carry on with new connections.
 */
export class DatabaseFaults extends Context.Tag("test/DatabaseFaults")<
  DatabaseFaults,
  {
    readonly breakConnections: Effect.Effect<number>
    /**
     * The database dies right after the next transaction commits: every connection open then is found dead at its
     * next statement (the service's next statement fails), while new connections work. Waits for nothing: `lost`
     * says how many connections have been found dead so far.
     */
    readonly dieAfterNextCommit: Effect.Effect<void>
    readonly lost: Effect.Effect<number>
  }
>() {}

export const onPostgres = (process.env["DATABASE_URL"] ?? "") !== ""

/** The reason that makes a revision fail at commit while `refuseRevisionsAtCommit` is in force. */
export const FAILS_AT_COMMIT = "fails at commit"

/**
 * A check that PostgreSQL makes only at commit, after every statement of the transaction ran: a transaction that
 * stores a revision with the reason FAILS_AT_COMMIT fails when it commits. Gives the effect that lifts the check.
 */
export const refuseRevisionsAtCommit = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    create or replace function refuse_at_commit() returns trigger language plpgsql as $$
    begin
      if new.reason = '${FAILS_AT_COMMIT}' then raise exception 'refused at commit'; end if;
      return new;
    end $$;
    drop trigger if exists refuse_at_commit on article_revisions;
    create constraint trigger refuse_at_commit after insert on article_revisions
      deferrable initially deferred for each row execute function refuse_at_commit();`)
  return sql
    .unsafe(`
    drop trigger refuse_at_commit on article_revisions;
    drop function refuse_at_commit();`)
    .pipe(Effect.asVoid, Effect.orDie)
}).pipe(Effect.orDie)

/** The server's answer to a COMMIT that committed (CommandComplete, tag "COMMIT"), as it appears on the wire. */
const COMMITTED = Buffer.concat([Buffer.from([0x43, 0, 0, 0, 11]), Buffer.from("COMMIT\0")])

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  /** The last bytes from the server, so that a message split between two reads is still seen. */
  tail: Buffer
  /** The database has died under this connection: the next statement sent on it finds it closed. */
  dead: boolean
}

/**
 * A TCP relay to a database server, through which the service reaches it: the test can close its connections (the
 * service sees what a terminated backend looks like on the wire, and the server rolls back what was open) or have
 * them die right after a commit.
 */
const relayTo = (target: { readonly host: string; readonly port: number }) =>
  Effect.gen(function* () {
    const pairs = new Set<Pair>()
    let armed = false
    let lost = 0
    const close = (pair: Pair) => {
      pairs.delete(pair)
      pair.client.destroy()
      pair.upstream.destroy()
    }
    const relay = createServer((client) => {
      const upstream = tcpConnect(target.port, target.host)
      const pair: Pair = { client, upstream, tail: Buffer.alloc(0), dead: false }
      pairs.add(pair)
      client.on("error", () => close(pair)).on("close", () => close(pair))
      upstream.on("error", () => close(pair)).on("close", () => close(pair))
      client.on("data", (chunk: Buffer) => {
        if (!pair.dead) return void upstream.write(chunk)
        lost++
        close(pair)
      })
      upstream.on("data", (chunk: Buffer) => {
        const seen = Buffer.concat([pair.tail, chunk])
        pair.tail = seen.subarray(Math.max(0, seen.length - COMMITTED.length + 1))
        if (armed && seen.includes(COMMITTED)) {
          armed = false
          for (const each of pairs) each.dead = true
        }
        client.write(chunk)
      })
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
          for (const pair of [...pairs]) close(pair)
          relay.close()
        })
    )
    const breakConnections = Effect.sync(() => {
      const ended = pairs.size
      for (const pair of [...pairs]) close(pair)
      return ended
    })
    const dieAfterNextCommit = Effect.sync(() => {
      armed = true
    })
    return { port, breakConnections, dieAfterNextCommit, lost: Effect.sync(() => lost) }
  })

/** PostgreSQL: every other backend of the test's database is terminated, as an operator or a failover would. */
const terminateBackends = (sql: SqlClient.SqlClient) =>
  sql<{ n: number }>`select count(*)::int as n from (
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()) as ended`.pipe(
    Effect.map((rows) => rows[0]?.n ?? 0),
    // The statement itself may land on a connection ended by the fault before: then it ended nothing.
    Effect.orElseSucceed(() => 0)
  )

/**
 * PostgreSQL, reached through the relay: its backends are terminated for `breakConnections`, the relay's connections
 * die for `dieAfterNextCommit`.
 */
const postgresBehindRelay = Effect.gen(function* () {
  const url = new URL((yield* freshPostgresUrl) ?? "")
  const relay = yield* relayTo({ host: url.hostname, port: Number(url.port || "5432") })
  url.port = String(relay.port)
  return {
    database: layerPostgres(Redacted.make(url.toString()), TEST_POOL_SIZE),
    faults: Layer.effect(
      DatabaseFaults,
      Effect.map(SqlClient.SqlClient, (sql) => ({
        breakConnections: terminateBackends(sql),
        dieAfterNextCommit: relay.dieAfterNextCommit,
        lost: relay.lost
      }))
    )
  }
})

/**
 * The embedded database cannot end a session (one session serves every connection), so the relay's connections are
 * closed instead, and the embedded server rolls back the transaction that connection had open.
 */
const embeddedBehindRelay = Effect.gen(function* () {
  const database = yield* embeddedServer({ dataDir: yield* embeddedTemplateCopy }).pipe(Effect.orDie)
  const { port, ...faults } = yield* relayTo(database)
  return {
    database: layerEmbeddedClient({ host: "127.0.0.1", port }),
    faults: Layer.succeed(DatabaseFaults, faults)
  }
})

/** The test server on a fresh database, with a way to break its database connections (see `DatabaseFaults`). */
export const FaultyServerLive = Layer.unwrapScoped(
  Effect.map(onPostgres ? postgresBehindRelay : embeddedBehindRelay, ({ database, faults }) =>
    Layer.provideMerge(faults, testServerOn(database))
  )
)
