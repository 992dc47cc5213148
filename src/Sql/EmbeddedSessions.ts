import { createServer, type Server, type Socket } from "node:net"
import type { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from "@electric-sql/pglite-socket"

/** PostgreSQL's Sync message: ends an extended-protocol batch, and a failed one's skipping of what follows. */
const sync = new Uint8Array([0x53, 0, 0, 0, 4])

/** Whether `tail`, the last bytes a message produced, is a ReadyForQuery with status idle (no transaction open). */
const endsIdle = (tail: Uint8Array) =>
  tail.length === 6 &&
  tail[0] === 0x5a &&
  tail[1] === 0 &&
  tail[2] === 0 &&
  tail[3] === 0 &&
  tail[4] === 5 &&
  tail[5] === 0x49

const lastSix = (tail: Uint8Array, chunk: Uint8Array) => {
  if (chunk.length >= 6) return chunk.slice(chunk.length - 6)
  const joined = new Uint8Array(tail.length + chunk.length)
  joined.set(tail)
  joined.set(chunk, tail.length)
  return joined.slice(Math.max(0, joined.length - 6))
}

/**
 * Lets several connections share PGlite's one session without seeing each other's statements. PGlite has a single
 * backend: an extended-protocol batch (Parse, Bind, Execute, Sync) or a transaction of one connection must not have
 * another connection's messages run in its middle (its unnamed statement, its portal and its transaction are the
 * session's). pglite-socket's own queue takes turns message by message, keeping a connection's turn only inside a
 * transaction (electric-sql/pglite#1046). Here a connection keeps the session from its first message until the
 * session is idle again (a ReadyForQuery with status idle), and the others wait their turn, in order.
 */
class SessionTurns {
  private owner: number | undefined = undefined
  /** Whether the owner's last message left a batch open (no ReadyForQuery yet). */
  private midBatch = false
  private readonly waiting: Array<{ readonly id: number; readonly go: () => void; readonly drop: () => void }> = []

  constructor(private readonly db: PGlite) {}

  private turn(id: number): Promise<void> {
    if (this.owner === undefined || this.owner === id) {
      this.owner = id
      return Promise.resolve()
    }
    return new Promise((go, drop) =>
      this.waiting.push({ id, go, drop: () => drop(new Error("The connection was closed.")) })
    )
  }

  private release() {
    this.owner = undefined
    this.midBatch = false
    const next = this.waiting.shift()
    if (next !== undefined) {
      this.owner = next.id
      next.go()
    }
  }

  /** Runs one message of connection `id` on the session, streaming what it produces to `onData`. */
  async enqueue(id: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    await this.turn(id)
    let bytes = 0
    let tail = new Uint8Array(0)
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, {
          onRawData: (chunk) => {
            bytes += chunk.length
            if (chunk.length > 0) tail = lastSix(tail, chunk)
            onData(chunk)
          }
        })
      )
    } catch (error) {
      await this.clearTransactionIfNeeded(id)
      throw error
    }
    if (endsIdle(tail)) this.release()
    else this.midBatch = !(tail.length === 6 && tail[0] === 0x5a)
    return bytes
  }

  /** A closed connection's waiting messages are dropped. */
  clearQueueForHandler(id: number) {
    for (const entry of this.waiting.filter((entry) => entry.id === id)) {
      this.waiting.splice(this.waiting.indexOf(entry), 1)
      entry.drop()
    }
  }

  /** A closed connection that had the session leaves it idle: its batch ended, its transaction rolled back. */
  async clearTransactionIfNeeded(id: number) {
    if (this.owner !== id) return
    try {
      if (this.midBatch) await this.db.runExclusive(() => this.db.execProtocolRaw(sync))
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK")
    } finally {
      this.release()
    }
  }
}

/** An embedded server: where it listens, and how to stop it (its connections closed, their transactions rolled back). */
export interface SessionServer {
  readonly host: string
  readonly port: number
  readonly stop: () => Promise<void>
}

/** How many connections at once: the service's own, and a few `cbs` commands beside it. */
const MAX_CONNECTIONS = 32

/** Serves `db` over the PostgreSQL wire protocol on `host` (a free port), to several connections taking turns. */
export const serveSessions = (db: PGlite, host: string): Promise<SessionServer> => {
  const turns = new SessionTurns(db)
  const handlers = new Set<PGLiteSocketHandler>()
  const accept = (socket: Socket) => {
    if (handlers.size >= MAX_CONNECTIONS) return void socket.destroy()
    const handler = new PGLiteSocketHandler({
      // pglite-socket takes any queue with its queue's methods; its class is not exported.
      queryQueue: turns as unknown as PGLiteSocketHandlerOptions["queryQueue"],
      closeOnDetach: true
    })
    handlers.add(handler)
    const forget = () => handlers.delete(handler)
    handler.addEventListener("close", forget)
    handler.addEventListener("error", forget)
    handler.attach(socket).catch(() => {
      forget()
      socket.destroy()
    })
  }
  const server: Server = createServer(accept)
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        host,
        port,
        stop: async () => {
          const closed = new Promise<void>((done) => server.close(() => done()))
          await Promise.all([...handlers].map((handler) => handler.detach(true)))
          handlers.clear()
          await closed
        }
      })
    })
  })
}
