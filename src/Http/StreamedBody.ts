import type { ClientRequest, IncomingMessage } from "node:http"
import type { Transform } from "node:stream"
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib"
import { Effect } from "effect"

/**
 * The body of an answer read as it arrives: decompressed (gzip, deflate, br), with both the compressed and the
 * decompressed bytes bounded, handed to a reader piece by piece, and the connection destroyed as soon as the reader
 * has enough or the bound is reached, so that the rest is never read.
 */

/** The content encodings an outbound fetch asks for. */
export const ACCEPT_ENCODING = "gzip, deflate, br"

/** The content encodings read: those asked for, and gzip's old name. */
const DECOMPRESSED = new Set(["gzip", "x-gzip", "deflate", "br"])

/** Reads a body as it arrives, decompressed, and says what it made of it. */
export interface BodyReader<A> {
  /** Takes the next bytes of the body; returns whether it wants more. */
  readonly write: (bytes: Uint8Array) => boolean
  /** What was made of the body, once reading stopped (at its end or before: see `BodyEnd`). */
  readonly end: () => A
}

/**
 * How reading the body stopped: `unread` (no reader wanted it), `complete` (its end), `enough` (the reader wanted
 * no more), `cut` (maxBytes was reached), `timed out` (the time ran out first) or `broken` (the connection broke
 * off, or the body could not be decompressed).
 */
export type BodyEnd = "unread" | "complete" | "enough" | "cut" | "timed out" | "broken"

/** A decompressor that passes on what it has when its input stops short (a body cut at maxBytes). */
const decompressorFor = (encoding: string, first: Buffer): Transform => {
  const flush = { finishFlush: constants.Z_SYNC_FLUSH }
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return createGunzip(flush)
    case "deflate":
      // "deflate" should be zlib-wrapped; some servers send it raw. A zlib header's first byte says method 8.
      return first.length > 0 && (first[0]! & 0x0f) === 8 && first[0]! >> 4 <= 7
        ? createInflate(flush)
        : createInflateRaw(flush)
    default:
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH })
  }
}

/** How many (decompressed) bytes the reader has been given: kept by the caller, which still knows it after a timeout. */
export interface Progress {
  bytes: number
}

/**
 * Reads `res`'s body into `reader` until its end, until the reader wants no more, or until `maxBytes` (compressed
 * or decompressed) is reached, then destroys the connection.
 */
export const readBody = <A>(
  req: ClientRequest,
  res: IncomingMessage,
  reader: BodyReader<A>,
  maxBytes: number,
  progress: Progress
) =>
  Effect.async<{ readonly end: BodyEnd; readonly problem: string | null }>((resume) => {
    const encoding = (res.headers["content-encoding"] ?? "identity").trim().toLowerCase()
    let over = false
    let decompressor: Transform | undefined
    let compressed = 0
    let cutShort = false
    const stop = () => {
      over = true
      req.destroy()
      decompressor?.destroy()
    }
    const finish = (end: BodyEnd, problem: string | null = null) => {
      if (over) return
      stop()
      resume(Effect.succeed({ end, problem }))
    }
    const give = (chunk: Buffer) => {
      if (over) return
      const room = maxBytes - progress.bytes
      if (room <= 0) return finish("cut")
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk
      progress.bytes += piece.length
      let more: boolean
      try {
        more = reader.write(piece)
      } catch (defect) {
        stop()
        return resume(Effect.die(defect))
      }
      if (!more) finish("enough")
      else if (chunk.length > room) finish("cut")
    }
    const broken = (problem: string) => () => {
      if (!cutShort) finish("broken", problem)
    }
    res.on("error", broken("the connection broke off"))
    res.on("close", () => {
      if (!res.complete) broken("the connection broke off")()
    })
    if (encoding === "identity") {
      res.on("data", give)
      res.on("end", () => finish("complete"))
      return Effect.sync(stop)
    }
    if (!DECOMPRESSED.has(encoding)) {
      finish("broken", `its body is encoded as ${encoding}, which is not read here`)
      return Effect.sync(stop)
    }
    const decompressing = (first: Buffer) => {
      if (decompressor !== undefined) return decompressor
      const made = decompressorFor(encoding, first)
      made.on("data", give)
      made.on("end", () => finish(cutShort ? "cut" : "complete"))
      made.on("error", () => finish("broken", `its ${encoding} body could not be decompressed`))
      decompressor = made
      return made
    }
    res.on("data", (chunk: Buffer) => {
      if (over || cutShort) return
      const room = maxBytes - compressed
      compressed += chunk.length
      if (chunk.length <= room) {
        decompressing(chunk).write(chunk)
        return
      }
      // The compressed bytes reach the bound: the rest is never read, what came is decompressed to its end.
      cutShort = true
      req.destroy()
      decompressing(chunk).end(chunk.subarray(0, room))
    })
    res.on("end", () => {
      if (over) return
      if (decompressor === undefined) finish("complete")
      else decompressor.end()
    })
    return Effect.sync(stop)
  })
