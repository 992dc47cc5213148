import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import { Deferred, Effect } from "effect"
import { listenOnLoopback } from "./LoopbackServer.js"

/** A request a page host got: its path and headers. */
export interface Visit {
  readonly path: string
  readonly headers: IncomingHttpHeaders
}

/** How a page host answers a request for a path; it may also never answer, or answer without end. */
export type Page = (req: IncomingMessage, res: ServerResponse) => void

/**
 * A website of the test's own: an HTTP server on 127.0.0.1 (a free port) answering each path as `pages` says (404
 * for a path it does not know), keeping every request it got. `origin` is its `http://127.0.0.1:port`; `pages` may
 * be added to once it runs (a page that needs the origin). Closed, with every connection, when the scope closes.
 */
export const pageHost = (pages: Record<string, Page> = {}) =>
  Effect.gen(function* () {
    const visits: Array<Visit> = []
    const server = createServer((req, res) => {
      const path = req.url ?? "/"
      visits.push({ path, headers: req.headers })
      const page = pages[path]
      if (page === undefined) res.writeHead(404, { "content-type": "text/html" }).end("<p>Not here</p>")
      else page(req, res)
    })
    const origin = `http://127.0.0.1:${yield* listenOnLoopback(server)}`
    return { origin, pages, visits }
  })

/** Answers `body` (text or bytes) with `status` and headers (an HTML page by default). */
export const answer =
  (body: string | Uint8Array, headers: Record<string, string | Array<string>> = {}, status = 200): Page =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers })
    res.end(body)
  }

/** Redirects to `location` with `status`. */
export const redirect =
  (location: string, status = 302): Page =>
  (_req, res) => {
    res.writeHead(status, { location }).end()
  }

/** What a page host wrote of an endless or huge answer, known once the answer's connection is closed. */
export interface Written {
  bytes: number
  /** Whether the answer was written to its end (false when the reader closed the connection first). */
  finished: boolean
  readonly closed: Deferred.Deferred<void>
}

/**
 * Answers `start`, then `chunk` over and over until `total` bytes are written (forever when `total` is Infinity),
 * writing only as fast as the reader reads (each write waits for the last to drain), and counting what it wrote.
 */
export const streamed = (
  written: Written,
  options: {
    readonly start?: string | Uint8Array
    readonly chunk: Uint8Array
    readonly total: number
    readonly headers?: Record<string, string>
  }
): Page => {
  const start = options.start ?? ""
  return (_req, res) => {
    res.on("close", () => {
      written.finished = res.writableFinished
      Deferred.unsafeDone(written.closed, Effect.void)
    })
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...options.headers })
    res.write(start)
    written.bytes += start.length
    const more = () => {
      while (written.bytes < options.total && !res.destroyed) {
        written.bytes += options.chunk.length
        if (!res.write(options.chunk)) {
          res.once("drain", more)
          return
        }
      }
      if (!res.destroyed) res.end()
    }
    more()
  }
}

/** A count of what a page host writes, and the sign that its answer's connection closed. */
export const makeWritten = Effect.map(
  Deferred.make<void>(),
  (closed): Written => ({ bytes: 0, finished: false, closed })
)

/** Answers with its head and `start`, then never sends more nor ends. */
export const neverEnding =
  (start: string): Page =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.write(start)
  }
