// @tags: runtime
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net"
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { outcomeOf } from "../src/Domain/LinkCheck.js"
import { LINK_CHECK_LIMITS } from "../src/LinkChecks/PageFetcher.js"
import {
  assertFound,
  assertNoAnswer,
  check,
  LINKED,
  MiB,
  makeLink,
  makePage,
  QUICK,
  TARGET,
  UNLINKED,
  USER_AGENT
} from "./support/LinkCheckFetches.js"
import { answer, makeWritten, neverEnding, type Page, pageHost, streamed } from "./support/PageHosts.js"

describe("Link check fetch: bounds", () => {
  it.scopedLive("a 50 MiB page is cut at 2 MiB and judged on that: the rest is never read", () =>
    Effect.gen(function* () {
      const host = yield* pageHost()
      const written = yield* makeWritten
      const filler = Buffer.from(`<p>${"Lorem ipsum dolor sit amet. ".repeat(2000)}</p>`)
      host.pages["/huge"] = streamed(written, { start: makePage(""), chunk: filler, total: 50 * MiB })
      const result = yield* check(`${host.origin}/huge`)
      assert.strictEqual(result.bytesRead, LINK_CHECK_LIMITS.maxBytes)
      assert.strictEqual(outcomeOf(result.fetch), "link_removed")
      yield* Deferred.await(written.closed)
      assert.isFalse(written.finished)
      // What the host got to write: the 2 MiB read and what the sockets' buffers took in, far from 50 MiB.
      assert.isBelow(written.bytes, 25 * MiB)
    })
  )

  it.scopedLive("a link within the first bytes of a huge page is found, and reading stops after it", () =>
    Effect.gen(function* () {
      const host = yield* pageHost()
      const written = yield* makeWritten
      host.pages["/huge"] = streamed(written, { start: LINKED, chunk: Buffer.alloc(64 * 1024, 0x20), total: 50 * MiB })
      const result = yield* check(`${host.origin}/huge`)
      assertFound(result)
      assert.isBelow(result.bytesRead, LINK_CHECK_LIMITS.maxBytes)
      yield* Deferred.await(written.closed)
      assert.isFalse(written.finished)
    })
  )

  it.scopedLive("a gzip bomb (1 GiB of zeros, about 1 MB compressed) is read to 2 MiB decompressed, no further", () =>
    Effect.gen(function* () {
      const bomb = yield* gzipOfZeros(1024 * MiB)
      const host = yield* pageHost({ "/bomb": answer(bomb, { "content-encoding": "gzip" }) })
      const result = yield* check(`${host.origin}/bomb`)
      assert.isAtMost(result.bytesRead, LINK_CHECK_LIMITS.maxBytes)
      assert.strictEqual(result.bytesRead, LINK_CHECK_LIMITS.maxBytes)
      assert.strictEqual(outcomeOf(result.fetch), "link_removed")
    })
  )

  it.scopedLive("the compressed bytes are bounded too: an endless compressed answer stops at maxBytes of it", () =>
    Effect.gen(function* () {
      const host = yield* pageHost()
      const written = yield* makeWritten
      // Random bytes do not compress: the compressed stream reaches the bound before the page does.
      const noise = gzipSync(Buffer.from(Array.from({ length: 256 * 1024 }, () => (Math.random() * 256) | 0)))
      host.pages["/noise"] = streamed(written, {
        chunk: noise,
        total: 50 * MiB,
        headers: { "content-encoding": "gzip" }
      })
      const limits = { ...LINK_CHECK_LIMITS, maxBytes: MiB }
      const result = yield* check(`${host.origin}/noise`, {}, limits)
      assert.strictEqual(result.fetch._tag, "Answered")
      // Random bytes come out of gzip no bigger than they went in: the compressed bound stopped the reading first.
      assert.isAbove(result.bytesRead, 0)
      assert.isBelow(result.bytesRead, MiB)
      yield* Deferred.await(written.closed)
      assert.isFalse(written.finished)
      assert.isBelow(written.bytes, 25 * MiB)
    })
  )

  it.scopedLive("a host that accepts the request and never answers is no answer once the time is up", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/silent": () => {} })
      assertNoAnswer(yield* check(`${host.origin}/silent`, {}, QUICK), /did not answer within 0.3 s/)
    })
  )

  it.scopedLive("a host that accepts the connection and never reads the request is no answer", () =>
    Effect.gen(function* () {
      const port = yield* mute
      assertNoAnswer(yield* check(`http://127.0.0.1:${port}/post`, {}, QUICK), /did not answer within/)
    })
  )

  it.scopedLive("a body that never ends, without the link so far, is no answer once the time is up", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/endless": neverEnding(`<html><body><p>Welcome ${makeLink("/about")}`) })
      const result = yield* check(`${host.origin}/endless`, {}, QUICK)
      assertNoAnswer(result, /did not arrive in full within 0.3 s/)
    })
  )

  it.scopedLive("a body that never ends, whose link had been read when the time ran out, counts as found", () =>
    Effect.gen(function* () {
      // The link is open (its text may go on), so the reading goes on until the time is up; a generous limit.
      const host = yield* pageHost({ "/endless": neverEnding(`<html><body><p><a href="${TARGET}">Best plumber`) })
      const result = yield* check(`${host.origin}/endless`, {}, { ...LINK_CHECK_LIMITS, timeoutMs: 3000 })
      assertFound(result)
    })
  )

  it.scopedLive("a connection that breaks off mid-page is no answer, unless the link had been read", () =>
    Effect.gen(function* () {
      const breakingOff =
        (start: string): Page =>
        (_req, res) => {
          res.writeHead(200, { "content-type": "text/html" })
          res.write(start, () => res.destroy())
        }
      const host = yield* pageHost({
        "/without": breakingOff(`<html><body><p>Welcome`),
        "/with": breakingOff(`<html><body><p><a href="${TARGET}">Best plumber`)
      })
      assertNoAnswer(yield* check(`${host.origin}/without`), /broke off/)
      assertFound(yield* check(`${host.origin}/with`))
    })
  )

  it.scopedLive("a refused connection is no answer", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      assertNoAnswer(yield* check(`http://127.0.0.1:${port}/post`), /could not be reached \(ECONNREFUSED\)/)
    })
  )
})

describe("Link check fetch: what is sent and how the page comes", () => {
  it.scopedLive(
    "sends the User-Agent, the Accept and Accept-Encoding headers, and no validators it was not given",
    () =>
      Effect.gen(function* () {
        const host = yield* pageHost({
          "/post": answer(LINKED, { etag: '"v1"', "last-modified": "Tue, 01 Sep 2026 10:00:00 GMT" })
        })
        const result = yield* check(`${host.origin}/post`)
        const headers = host.visits[0]!.headers
        assert.strictEqual(headers["user-agent"], USER_AGENT)
        assert.strictEqual(headers.accept, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
        assert.strictEqual(headers["accept-encoding"], "gzip, deflate, br")
        assert.isUndefined(headers["if-none-match"])
        assert.isUndefined(headers["if-modified-since"])
        assert.deepStrictEqual([result.etag, result.lastModified], ['"v1"', "Tue, 01 Sep 2026 10:00:00 GMT"])
      })
  )

  it.scopedLive("sends the validators it is given; a 304 is notModified and keeps the last finding", () =>
    Effect.gen(function* () {
      const lastModified = "Tue, 01 Sep 2026 10:00:00 GMT"
      const host = yield* pageHost({
        "/post": (req, res) => {
          const unchanged = req.headers["if-none-match"] === '"v1"' || req.headers["if-modified-since"] === lastModified
          if (unchanged) res.writeHead(304, { etag: '"v1"' }).end()
          else res.writeHead(200, { "content-type": "text/html" }).end(UNLINKED)
        }
      })
      const byEtag = yield* check(`${host.origin}/post`, { etag: '"v1"', lastModified, foundBefore: true })
      assert.strictEqual(host.visits[0]!.headers["if-none-match"], '"v1"')
      assert.strictEqual(host.visits[0]!.headers["if-modified-since"], lastModified)
      assert.isTrue(byEtag.notModified)
      assert.strictEqual(byEtag.httpStatus, 304)
      assert.strictEqual(outcomeOf(byEtag.fetch), "found")
      // A 304 without Last-Modified: the one sent is still the page's.
      assert.deepStrictEqual([byEtag.etag, byEtag.lastModified], ['"v1"', lastModified])

      const byDate = yield* check(`${host.origin}/post`, { lastModified, foundBefore: false })
      assert.strictEqual(host.visits[1]!.headers["if-modified-since"], lastModified)
      assert.isUndefined(host.visits[1]!.headers["if-none-match"])
      assert.isTrue(byDate.notModified)
      assert.strictEqual(outcomeOf(byDate.fetch), "link_removed")

      const changed = yield* check(`${host.origin}/post`, { etag: '"v0"', foundBefore: true })
      assert.isFalse(changed.notModified)
      assert.strictEqual(outcomeOf(changed.fetch), "link_removed")
    })
  )

  it.scopedLive("a 304 to a request without validators is no answer", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/post": (_req, res) => res.writeHead(304).end() })
      assertNoAnswer(yield* check(`${host.origin}/post`, { foundBefore: true }), /304/)
    })
  )

  it.scopedLive("reads pages compressed with gzip, deflate (zlib or raw) and br", () =>
    Effect.gen(function* () {
      const page = Buffer.from(LINKED)
      const host = yield* pageHost({
        "/gzip": answer(gzipSync(page), { "content-encoding": "gzip" }),
        "/deflate": answer(deflateSync(page), { "content-encoding": "deflate" }),
        "/raw-deflate": answer(deflateRawSync(page), { "content-encoding": "deflate" }),
        "/br": answer(brotliCompressSync(page), { "content-encoding": "BR" })
      })
      for (const path of ["/gzip", "/deflate", "/raw-deflate", "/br"]) {
        const result = yield* check(`${host.origin}${path}`)
        assertFound(result)
        assert.isAtMost(result.bytesRead, page.length, path)
      }
    })
  )

  it.scopedLive("a body that does not decompress, or in an encoding not asked for, is no answer", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/corrupt": answer(Buffer.from("this is not gzip at all"), { "content-encoding": "gzip" }),
        "/zstd": answer(Buffer.from(LINKED), { "content-encoding": "zstd" })
      })
      assertNoAnswer(yield* check(`${host.origin}/corrupt`), /could not be decompressed/)
      assertNoAnswer(yield* check(`${host.origin}/zstd`), /zstd/)
    })
  )

  it.scopedLive("reads windows-1252 and Shift_JIS pages, their non-ASCII anchor text included", () =>
    Effect.gen(function* () {
      const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
        Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))))
      const host = yield* pageHost({
        // Declared by the header: "Café crème" with é = 0xE9 and è = 0xE8.
        "/cp1252": answer(bytes(`<p><a href="${TARGET}">Caf`, [0xe9], " cr", [0xe8], "me</a>"), {
          "content-type": "text/html; charset=windows-1252"
        }),
        // Declared by the page's meta: "日本" in Shift_JIS.
        "/sjis": answer(bytes(`<meta charset="Shift_JIS"><p><a href="${TARGET}">`, [0x93, 0xfa, 0x96, 0x7b], "</a>"), {
          "content-type": "text/html"
        })
      })
      assertFound(yield* check(`${host.origin}/cp1252`), "Café crème")
      assertFound(yield* check(`${host.origin}/sjis`), "日本")
    })
  )
})

/** `size` bytes of zeros gzipped, compressed piece by piece (the zeros are never all in memory). */
const gzipOfZeros = (size: number) =>
  Effect.async<Buffer>((resume) => {
    const gzip = createGzip()
    const chunks: Array<Buffer> = []
    gzip.on("data", (chunk: Buffer) => chunks.push(chunk))
    gzip.on("end", () => resume(Effect.succeed(Buffer.concat(chunks))))
    const zeros = Buffer.alloc(MiB)
    let left = size
    const more = () => {
      while (left > 0) {
        left -= zeros.length
        if (!gzip.write(zeros)) {
          gzip.once("drain", more)
          return
        }
      }
      gzip.end()
    }
    more()
  })

/** A TCP server that accepts connections and never reads or writes anything; its port. Closed with the scope. */
const mute = Effect.acquireRelease(
  Effect.async<{ server: NetServer; sockets: Set<Socket>; port: number }>((resume) => {
    const sockets = new Set<Socket>()
    const server = createNetServer((socket) => {
      sockets.add(socket)
      socket.pause()
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ server, sockets, port }))
    })
  }),
  ({ server, sockets }) =>
    Effect.sync(() => {
      for (const socket of sockets) socket.destroy()
      server.close()
    })
).pipe(Effect.map(({ port }) => port))

/** A port on 127.0.0.1 nothing listens on (it was free a moment ago, and is closed again). */
const closedPort = Effect.async<number>((resume) => {
  const server = createNetServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})
