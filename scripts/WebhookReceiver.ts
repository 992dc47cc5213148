import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import http from "node:http"
import type { Socket } from "node:net"
import { Webhook } from "standardwebhooks"

/** One delivery as the receiver got it. */
export interface Received {
  readonly webhookId: string
  /** Whether its `webhook-signature` verified with the endpoint's secret (Standard Webhooks). */
  readonly verified: boolean
  /** The name of the process that sent it (see `owners`), or undefined when it could not be told. */
  readonly sender: string | undefined
  readonly at: number
}

export interface ReceiverOptions {
  /** The endpoint's secret, `whsec_…`. */
  readonly secret: string
  /** How long each answer is held back before its 204: keeps deliveries in flight for a while. Default 0. */
  readonly holdMs?: number
  /**
   * The processes that may send, by pid: each connection is traced to the one holding its other end (Linux, through
   * /proc), so that every delivery names its sender. Without it, `sender` is undefined.
   */
  readonly owners?: () => ReadonlyMap<number, string>
}

/** The `/proc/net/tcp` form of a port: four upper-case hex digits. */
const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")

/**
 * The process (among `owners`) holding the client end of a loopback connection to this server: the socket whose
 * local port is the connection's remote port and whose remote port is ours, found by its inode in /proc/net/tcp, then
 * among the open files of each candidate process. Undefined when none holds it (or off Linux).
 */
const senderOf = (socket: Socket, owners: ReadonlyMap<number, string>): string | undefined => {
  try {
    const local = `:${hexPort(socket.remotePort ?? 0)}`
    const remote = `:${hexPort(socket.localPort ?? 0)}`
    const inode = readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .find((fields) => fields[1]?.endsWith(local) && fields[2]?.endsWith(remote))?.[9]
    if (inode === undefined || inode === "0") return undefined
    for (const [pid, name] of owners) if (holds(pid, `socket:[${inode}]`)) return name
  } catch {
    // not Linux
  }
  return undefined
}

/** Whether process `pid` has `file` open (false when it has exited). */
const holds = (pid: number, file: string) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file
      } catch {
        return false // closed meanwhile
      }
    })
  } catch {
    return false
  }
}

/**
 * A webhook receiver on 127.0.0.1 (node:http): verifies each delivery with the `standardwebhooks` library, counts the
 * deliveries of each `webhook-id`, and answers 204 (after `holdMs`). `inFlight(sender)` counts the deliveries of a
 * sender still waiting for their answer.
 */
export const startReceiver = async (options: ReceiverOptions) => {
  const webhook = new Webhook(options.secret)
  const received: Array<Received> = []
  const senders = new WeakMap<Socket, string | undefined>()
  const waiting = new Map<string, number>()
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const headers = Object.fromEntries(
        ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(req.headers[name] ?? "")])
      )
      let verified = true
      try {
        webhook.verify(Buffer.concat(chunks), headers)
      } catch {
        verified = false
      }
      const sender = senders.get(req.socket)
      received.push({ webhookId: headers["webhook-id"] ?? "", verified, sender, at: Date.now() })
      const key = sender ?? "?"
      waiting.set(key, (waiting.get(key) ?? 0) + 1)
      let answered = false
      const done = () => {
        if (answered) return
        answered = true
        waiting.set(key, (waiting.get(key) ?? 1) - 1)
      }
      res.once("close", done)
      setTimeout(() => {
        res.writeHead(verified ? 204 : 400).end()
        done()
      }, options.holdMs ?? 0)
    })
  })
  server.keepAliveTimeout = 30_000
  if (options.owners !== undefined) {
    const owners = options.owners
    server.on("connection", (socket: Socket) => senders.set(socket, senderOf(socket, owners())))
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    /** How many deliveries of each webhook-id arrived. */
    counts: () => {
      const counts = new Map<string, number>()
      for (const { webhookId } of received) counts.set(webhookId, (counts.get(webhookId) ?? 0) + 1)
      return counts
    },
    inFlight: (sender: string) => waiting.get(sender) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A new endpoint secret as the service makes them: `whsec_` and 32 random bytes in base64. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`
