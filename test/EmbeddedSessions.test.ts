// @tags: engine
import { createConnection, type Socket } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import pg from "pg"
import { embeddedServer } from "../src/Sql/Database.js"
import { embeddedTemplateCopy } from "./support/TestDatabase.js"

/** A node-postgres connection to the embedded server, ended with the scope. */
const connect = (server: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ host: server.host, port: server.port, user: "postgres", database: "postgres" })
      // A connection this test cuts reports it as an error event; that is expected here.
      client.on("error", () => {})
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )

const query = <A extends pg.QueryResultRow>(client: pg.Client, text: string, values?: ReadonlyArray<unknown>) =>
  Effect.promise(() => client.query<A>(text, values === undefined ? undefined : [...values]))

/** A frontend message: its type byte, then its length and body. */
const message = (type: string, ...parts: ReadonlyArray<Buffer>) => {
  const body = Buffer.concat(parts)
  const length = Buffer.alloc(4)
  length.writeInt32BE(body.length + 4)
  return Buffer.concat([Buffer.from(type), length, body])
}
const text = (value: string) => Buffer.from(`${value}\0`)
const int16 = (value: number) => Buffer.from([value >> 8, value & 0xff])

/**
 * A connection that speaks the wire protocol message by message, so that a test can stop in the middle of an
 * extended-protocol batch, as a client whose batch reaches the server in several reads does.
 */
const rawConnection = (server: { readonly host: string; readonly port: number }) =>
  Effect.gen(function* () {
    const socket = yield* Effect.acquireRelease(
      Effect.async<Socket>((resume) => {
        const socket: Socket = createConnection(server.port, server.host, () => resume(Effect.succeed(socket)))
      }),
      (socket) => Effect.sync(() => socket.destroy())
    )
    let received = Buffer.alloc(0)
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
    })
    /** Waits until the server has sent a message of `type`; returns everything received, and forgets it. */
    const until = (type: string) =>
      Effect.async<Buffer>((resume) => {
        const timer = setInterval(() => {
          for (let at = 0; at + 5 <= received.length; at += 1 + received.readInt32BE(at + 1)) {
            if (received.toString("latin1", at, at + 1) === type) {
              clearInterval(timer)
              const all = received
              received = Buffer.alloc(0)
              resume(Effect.succeed(all))
              return
            }
          }
        }, 10)
        return Effect.sync(() => clearInterval(timer))
      })
    const startup = Buffer.concat([Buffer.from([0, 3, 0, 0]), text("user"), text("postgres"), text("database")])
    const params = Buffer.concat([startup, text("postgres"), Buffer.from([0])])
    const length = Buffer.alloc(4)
    length.writeInt32BE(params.length + 4)
    socket.write(Buffer.concat([length, params]))
    yield* until("Z")
    return {
      parse: (sql: string) => socket.write(Buffer.concat([message("P", text(""), text(sql), int16(0)), message("H")])),
      bindExecuteSync: () =>
        socket.write(
          Buffer.concat([
            message("B", text(""), text(""), int16(0), int16(0), int16(0)),
            message("E", text(""), Buffer.alloc(4)),
            message("S")
          ])
        ),
      until
    }
  })

/** One embedded server for the file (each test leaves its session idle). */
class Server extends Context.Tag("test/EmbeddedSessions/Server")<
  Server,
  { readonly host: string; readonly port: number }
>() {}
const ServerLive = Layer.scoped(
  Server,
  Effect.flatMap(embeddedTemplateCopy, (dataDir) => embeddedServer({ dataDir })).pipe(Effect.orDie)
)

layer(ServerLive, { excludeTestServices: true })("connections to the embedded server share its one session", (it) => {
  it.scoped("another connection's statement waits while a connection is in the middle of a batch", () =>
    Effect.gen(function* () {
      const server = yield* Server
      const raw = yield* rawConnection(server)
      const other = yield* connect(server)
      raw.parse("select 'first connection' as v")
      yield* raw.until("1")
      // The statement parsed is the session's unnamed statement: another connection's batch, run now, would take
      // its place before the first connection binds it. The other batch is given a moment to do so (it waits, and
      // the moment passes), or to finish (which is what this test catches).
      const waiting = yield* Effect.fork(query<{ v: string }>(other, "select $1::text as v", ["other connection"]))
      yield* waiting.await.pipe(Effect.timeoutOption("1 second"))
      raw.bindExecuteSync()
      const answer = yield* raw.until("Z")
      assert.include(answer.toString("latin1"), "first connection")
      assert.notInclude(answer.toString("latin1"), "other connection")
      assert.deepStrictEqual((yield* waiting.await.pipe(Effect.flatten)).rows, [{ v: "other connection" }])
    })
  )

  it.scoped(
    "a transaction keeps the session until it ends; one left open by a connection that goes away is rolled back",
    () =>
      Effect.gen(function* () {
        const server = yield* Server
        const [owner, other] = yield* Effect.all([connect(server), connect(server)])
        yield* query(owner, "begin")
        yield* query(owner, "create table session_probe (x int)")
        // The other connection's statement waits for the transaction, rather than run inside it.
        const waiting = yield* Effect.fork(
          Effect.tryPromise(() => other.query("select count(*)::int as n from session_probe"))
        )
        yield* query(owner, "insert into session_probe values (1)")
        owner.connection.stream.destroy()
        const error = yield* Effect.flip(waiting.await.pipe(Effect.flatten))
        assert.match(String(error.cause), /relation "session_probe" does not exist/)
        const after = yield* query<{ n: number }>(other, "select 1 as n")
        assert.deepStrictEqual(after.rows, [{ n: 1 }])
      })
  )
})
