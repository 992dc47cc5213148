import { request } from "node:http"
import { connect } from "node:net"

/**
 * One request exactly as it goes on the wire, for the requests `fetch` cannot make: any method, path and headers,
 * a body sent with a Content-Length, in chunks, or cut short.
 * - `length`: the body with its Content-Length;
 * - `chunked`: `Transfer-Encoding: chunked`, in pieces of `chunkSize` bytes or more (at most 4096 pieces);
 * - `truncated`: a Content-Length `missing` bytes longer than the body, then the client ends its side of the
 *   connection (a half-close: the answer can still come back).
 */
export interface RawRequest {
  readonly method: string
  /** Path and query as sent: already percent-encoded where the request means to be. */
  readonly target: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array
  readonly framing: RawFraming
}

export type RawFraming =
  | { readonly _tag: "length" }
  | { readonly _tag: "chunked"; readonly chunkSize: number }
  | { readonly _tag: "truncated"; readonly missing: number }

export type RawOutcome =
  | {
      readonly _tag: "Answered"
      readonly status: number
      readonly headers: Record<string, string>
      readonly text: string
    }
  /** The server closed the connection without an answer. */
  | { readonly _tag: "Closed"; readonly reason: string }
  | { readonly _tag: "NoAnswer"; readonly afterMs: number }
  /** node:http refused to send the request (a generator made something no client can send). */
  | { readonly _tag: "Unsendable"; readonly reason: string }

const bytesOf = (body: string | Uint8Array) =>
  typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body)

/** Pieces of a chunked body: at most 4096 of them (Node's parser takes seconds over a million one-byte chunks). */
const chunkSizeOf = (size: number, bodyLength: number) => Math.max(1, size, Math.ceil(bodyLength / 4096))

/** Shown on a failure: enough to send the request again by hand. */
export const describeRequest = (req: RawRequest, bodyPrefix = 1000): string => {
  const body = bytesOf(req.body)
  const shown = body.subarray(0, bodyPrefix).toString("utf8")
  return [
    `${req.method} ${JSON.stringify(req.target)} (${req.framing._tag}${
      req.framing._tag === "chunked"
        ? `, chunks of ${chunkSizeOf(req.framing.chunkSize, body.length)} bytes`
        : req.framing._tag === "truncated"
          ? `, Content-Length ${body.length + req.framing.missing} for ${body.length} bytes, then end`
          : ""
    })`,
    `headers: ${JSON.stringify(req.headers)}`,
    `body (${body.length} bytes${body.length > bodyPrefix ? `, first ${bodyPrefix}` : ""}): ${JSON.stringify(shown)}`
  ].join("\n")
}

const headerRecord = (headers: NodeJS.Dict<string | Array<string>>) => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** Resolves with the first outcome only, after `cleanup` (the timer cleared, the connection closed). */
const settleOnce = (resolve: (outcome: RawOutcome) => void, cleanup: () => void) => {
  let settled = false
  return (outcome: RawOutcome) => {
    if (settled) return
    settled = true
    cleanup()
    resolve(outcome)
  }
}

/** Sends with node:http, on a connection of its own; settles with the answer or when nothing came in `timeoutMs`. */
const sendWithHttp = (origin: URL, req: RawRequest, timeoutMs: number): Promise<RawOutcome> =>
  new Promise<RawOutcome>((resolve) => {
    const body = bytesOf(req.body)
    const chunked = req.framing._tag === "chunked"
    const started = Date.now()
    const settle = settleOnce(resolve, () => {
      clearTimeout(timer)
      client.destroy()
    })
    const client = request(
      {
        host: origin.hostname,
        port: origin.port,
        method: req.method,
        path: req.target,
        agent: false,
        setHost: !Object.keys(req.headers).some((name) => name.toLowerCase() === "host"),
        headers: {
          ...req.headers,
          ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) })
        }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("error", () => undefined)
        const answered = () =>
          settle({
            _tag: "Answered",
            status: res.statusCode ?? 0,
            headers: headerRecord(res.headers),
            text: Buffer.concat(chunks).toString("utf8")
          })
        res.on("end", answered)
        res.on("close", answered)
      }
    )
    const timer = setTimeout(() => settle({ _tag: "NoAnswer", afterMs: Date.now() - started }), timeoutMs)
    client.on("error", (error) => settle({ _tag: "Closed", reason: error.message }))
    if (chunked) {
      const size = chunkSizeOf(req.framing.chunkSize, body.length)
      for (let at = 0; at < body.length; at += size) client.write(body.subarray(at, at + size))
      client.end()
    } else {
      client.end(body)
    }
  })

/** Sends the head and a body shorter than its Content-Length over a plain socket, then half-closes. */
const sendTruncated = (origin: URL, req: RawRequest, missing: number, timeoutMs: number): Promise<RawOutcome> =>
  new Promise((resolve) => {
    const body = bytesOf(req.body)
    const started = Date.now()
    const received: Array<Buffer> = []
    const settle = settleOnce(resolve, () => {
      clearTimeout(timer)
      socket.destroy()
    })
    const answered = (reason: string): RawOutcome => {
      const text = Buffer.concat(received).toString("latin1")
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)
      if (status === null) return { _tag: "Closed", reason }
      const [head = "", rest = ""] = text.split("\r\n\r\n", 2)
      const headers: Record<string, string> = {}
      for (const line of head.split("\r\n").slice(1)) {
        const at = line.indexOf(":")
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim()
      }
      return { _tag: "Answered", status: Number(status[1]), headers, text: rest }
    }
    const socket = connect({ host: origin.hostname, port: Number(origin.port), allowHalfOpen: true }, () => {
      const headers = { host: origin.host, ...req.headers, "content-length": String(body.length + missing) }
      const head = `${req.method} ${req.target} HTTP/1.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("")}\r\n`
      socket.write(Buffer.from(head, "latin1"))
      socket.write(body)
      socket.end()
    })
    const timer = setTimeout(() => settle({ _tag: "NoAnswer", afterMs: Date.now() - started }), timeoutMs)
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk)
      // An answer whose head is complete is enough; the body may never end on a connection the server keeps.
      const outcome = answered("")
      if (outcome._tag === "Answered" && Buffer.concat(received).includes("\r\n\r\n")) settle(outcome)
    })
    socket.on("error", (error) => settle(answered(error.message)))
    socket.on("close", () => settle(answered("closed")))
  })

/** Sends `req` to the server at `origin`; never waits longer than `timeoutMs`. */
export const sendRaw = (origin: string, req: RawRequest, timeoutMs: number): Promise<RawOutcome> => {
  const url = new URL(origin)
  try {
    return req.framing._tag === "truncated"
      ? sendTruncated(url, req, req.framing.missing, timeoutMs)
      : sendWithHttp(url, req, timeoutMs)
  } catch (error) {
    return Promise.resolve({ _tag: "Unsendable", reason: error instanceof Error ? error.message : String(error) })
  }
}
