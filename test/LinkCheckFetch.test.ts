// @tags: runtime
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { outcomeOf } from "../src/Domain/LinkCheck.js"
import { addressFor } from "../src/Http/OutboundFetch.js"
import { fetchPage } from "../src/LinkChecks/PageFetcher.js"
import {
  assertFound,
  assertNoAnswer,
  check,
  LINKED,
  MiB,
  makeLink,
  makePage,
  makeRequest,
  TARGET,
  UNLINKED
} from "./support/LinkCheckFetches.js"
import { answer, makeWritten, pageHost, redirect, streamed } from "./support/PageHosts.js"

describe("Link check fetch: finding the link on the page", () => {
  it.scopedLive("finds the link written with another host case, the default port and a fragment", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/post": answer(makePage(makeLink("HTTPS://CLIENT.Test:443/plumbing#prices"))) })
      const result = yield* check(`${host.origin}/post`)
      assertFound(result)
      assert.strictEqual(result.httpStatus, 200)
      assert.strictEqual(result.finalUrl, `${host.origin}/post`)
      assert.isFalse(result.notModified)
    })
  )

  it.scopedLive("an empty path equals /, but a trailing slash the target lacks is another page", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/home": answer(makePage(makeLink("https://client.test"))),
        "/slash": answer(makePage(makeLink("https://client.test/plumbing/")))
      })
      assertFound(yield* check(`${host.origin}/home`, { targetUrl: "https://client.test/" }))
      const slashed = yield* check(`${host.origin}/slash`)
      assert.strictEqual(outcomeOf(slashed.fetch), "link_removed")
    })
  )

  it.scopedLive("resolves relative hrefs against the page's address, and against its <base href>", () =>
    Effect.gen(function* () {
      const host = yield* pageHost()
      host.pages["/blog/posts/one"] = answer(makePage(makeLink("../services/plumbing")))
      host.pages["/based"] = answer(makePage(makeLink("plumbing"), `<base href="https://client.test/">`))
      assertFound(yield* check(`${host.origin}/blog/posts/one`, { targetUrl: `${host.origin}/blog/services/plumbing` }))
      assertFound(yield* check(`${host.origin}/based`))
    })
  )

  it.scopedLive("reports the link's nofollow, sponsored and ugc values, whatever their case, and no others", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/post": answer(makePage(makeLink(TARGET, "Plumbers", ` rel="noopener UGC nofollow Sponsored"`)))
      })
      const result = yield* check(`${host.origin}/post`)
      assertFound(result, "Plumbers")
      assert.deepStrictEqual([...result.rel].sort(), ["nofollow", "sponsored", "ugc"])
    })
  )

  it.scopedLive("a page answering 200 without the link has not got it (link_removed)", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/post": answer(UNLINKED) })
      const result = yield* check(`${host.origin}/post`)
      assert.deepStrictEqual(result.fetch, {
        _tag: "Answered",
        status: 200,
        sourceUrl: `${host.origin}/post`,
        finalUrl: `${host.origin}/post`,
        found: false
      })
      assert.strictEqual(outcomeOf(result.fetch), "link_removed")
      assert.deepStrictEqual([result.rel, result.anchorText, result.error], [[], null, null])
    })
  )

  it.scopedLive("finds the link after 100,000 other links, and inside 100,000 nested elements", () =>
    Effect.gen(function* () {
      const links = Array.from({ length: 100_000 }, (_, n) => `<a href=/${n}>.</a>`).join("")
      const nested = `${"<div>".repeat(100_000)}${makeLink(TARGET)}${"</div>".repeat(100_000)}`
      const host = yield* pageHost({
        "/links": answer(makePage(`${links}${makeLink(TARGET)}`)),
        "/nested": answer(makePage(nested))
      })
      assertFound(yield* check(`${host.origin}/links`))
      assertFound(yield* check(`${host.origin}/nested`))
    })
  )
})

describe("Link check fetch: noindex", () => {
  it.scopedLive("a robots meta saying noindex is metaNoindex; the link is still found", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/post": answer(makePage(makeLink(TARGET), `<meta name="Robots" content="noindex, follow">`))
      })
      const result = yield* check(`${host.origin}/post`)
      assertFound(result)
      assert.deepStrictEqual([result.metaNoindex, result.headerNoindex], [true, false])
    })
  )

  it.scopedLive("an X-Robots-Tag header saying noindex is headerNoindex, also as one of several header lines", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/one": answer(LINKED, { "x-robots-tag": "noindex" }),
        "/several": answer(LINKED, { "x-robots-tag": ["otherbot: noindex", "googlebot: none"] }),
        "/other-bot": answer(LINKED, { "x-robots-tag": ["otherbot: noindex", "nofollow"] }),
        "/plain": answer(LINKED)
      })
      const noindex = (path: string) =>
        Effect.map(check(`${host.origin}${path}`), (result) => [result.headerNoindex, result.metaNoindex])
      assert.deepStrictEqual(yield* noindex("/one"), [true, false])
      assert.deepStrictEqual(yield* noindex("/several"), [true, false])
      assert.deepStrictEqual(yield* noindex("/other-bot"), [false, false])
      assert.deepStrictEqual(yield* noindex("/plain"), [false, false])
    })
  )
})

describe("Link check fetch: statuses and types that are not read", () => {
  it.scopedLive("404 and 410 are page_not_found and 500 unreachable; their bodies, link and all, are not read", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/gone": answer(LINKED, {}, 410),
        "/missing": answer(LINKED, {}, 404),
        "/broken": answer(LINKED, {}, 500)
      })
      for (const [path, status, outcome] of [
        ["/missing", 404, "page_not_found"],
        ["/gone", 410, "page_not_found"],
        ["/broken", 500, "unreachable"]
      ] as const) {
        const result = yield* check(`${host.origin}${path}`)
        assert.strictEqual(result.fetch._tag, "Answered", path)
        assert.strictEqual(result.httpStatus, status)
        assert.strictEqual(outcomeOf(result.fetch), outcome)
        assert.deepStrictEqual([result.bytesRead, result.anchorText, result.error], [0, null, null])
      }
    })
  )

  it.scopedLive("an image or a PDF answers without being read: found false, nothing read, the connection closed", () =>
    Effect.gen(function* () {
      const host = yield* pageHost()
      for (const type of ["image/png", "application/pdf", "application/octet-stream"]) {
        const written = yield* makeWritten
        host.pages["/file"] = streamed(written, {
          start: LINKED,
          chunk: Buffer.alloc(64 * 1024, 0x20),
          total: 50 * MiB,
          headers: { "content-type": type }
        })
        const result = yield* check(`${host.origin}/file`)
        assert.strictEqual(outcomeOf(result.fetch), "link_removed", type)
        assert.deepStrictEqual([result.httpStatus, result.bytesRead], [200, 0])
        yield* Deferred.await(written.closed)
        assert.isFalse(written.finished, `${type}: the host wrote all of it`)
        assert.isBelow(written.bytes, 25 * MiB)
      }
    })
  )

  it.scopedLive("an answer without a Content-Type is read as HTML; application/xhtml+xml is read too", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/untyped": (_req, res) => {
          res.removeHeader("content-type")
          res.writeHead(200).end(LINKED)
        },
        "/xhtml": answer(LINKED, { "content-type": "Application/XHTML+XML; charset=utf-8" })
      })
      assertFound(yield* check(`${host.origin}/untyped`))
      assertFound(yield* check(`${host.origin}/xhtml`))
    })
  )
})

describe("Link check fetch: redirects", () => {
  it.scopedLive("follows a redirect to a page with the link: found there, the final address reported", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/old": redirect("/new", 301), "/new": answer(LINKED) })
      const result = yield* check(`${host.origin}/old`)
      assertFound(result)
      assert.strictEqual(result.finalUrl, `${host.origin}/new`)
      assert.deepStrictEqual(
        host.visits.map((visit) => visit.path),
        ["/old", "/new"]
      )
    })
  )

  it.scopedLive("a redirect to a page without the link is redirected_away", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/old": redirect("/home", 308), "/home": answer(UNLINKED) })
      const result = yield* check(`${host.origin}/old`)
      assert.strictEqual(result.finalUrl, `${host.origin}/home`)
      assert.strictEqual(outcomeOf(result.fetch), "redirected_away")
    })
  )

  it.scopedLive("five redirects are followed; a sixth is no answer", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/6": answer(LINKED) })
      for (let n = 0; n < 6; n++) host.pages[`/${n}`] = redirect(`/${n + 1}`, 302 + (n % 2) * 5)
      assertFound(yield* check(`${host.origin}/1`))
      assertNoAnswer(yield* check(`${host.origin}/0`), /redirects more than 5 times/)
    })
  )

  it.scopedLive("a redirect loop is no answer, found as soon as an address comes back", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/a": redirect("/b"), "/b": redirect("/a#again") })
      const result = yield* check(`${host.origin}/a`)
      assertNoAnswer(result, /loop/)
      assert.strictEqual(host.visits.length, 2)
    })
  )

  it.scopedLive("a redirect to a private or link-local address is refused even where loopback is allowed", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({
        "/to-private": redirect("http://10.0.0.1/admin"),
        "/to-metadata": redirect("http://169.254.169.254/latest/meta-data/"),
        "/to-mapped": redirect("http://[::ffff:192.168.1.1]/")
      })
      for (const [path, address] of [
        ["/to-private", "10.0.0.1"],
        ["/to-metadata", "169.254.169.254"],
        ["/to-mapped", "::ffff:c0a8:101"]
      ] as const) {
        const result = yield* check(`${host.origin}${path}`)
        assertNoAnswer(result, /not a public internet address/)
        assert.include(result.error, address)
        assert.include(result.error, "redirects to")
      }
    })
  )

  it.scopedLive("without the development setting a loopback page is refused, and never requested", () =>
    Effect.gen(function* () {
      const host = yield* pageHost({ "/post": answer(LINKED) })
      const result = yield* fetchPage(makeRequest(`${host.origin}/post`))
      assertNoAnswer(result, /127\.0\.0\.1 is not a public internet address/)
      assert.strictEqual(host.visits.length, 0)
    })
  )

  it.effect("a page may be on plain http at a public address, where a customer's service must be https", () =>
    Effect.gen(function* () {
      const production = { trustedHosts: new Set<string>(), ca: undefined }
      const address = yield* addressFor(new URL("http://93.184.216.34/post"), production, "web")
      assert.strictEqual(address.address, "93.184.216.34")
      const refused = yield* Effect.flip(addressFor(new URL("http://93.184.216.34/post"), production, "https"))
      assert.match(refused.message, /not an https:\/\/ URL/)
    })
  )

  it.scopedLive("an address that is not http(s) is refused", () =>
    Effect.gen(function* () {
      assertNoAnswer(yield* check("ftp://127.0.0.1/post"), /not an http:\/\/ or https:\/\/ URL/)
      assertNoAnswer(yield* check("not a url"), /not a URL/)
    })
  )
})
