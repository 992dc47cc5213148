// @tags: unit
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import fc from "fast-check"
import { MAX_ANCHOR_TEXT } from "../src/Html/AnchorText.js"
import { findLink, findLinkInStream, LinkFinder, type LinkSearch } from "../src/Html/LinkFinder.js"
import { charsetOf } from "../src/Html/PageDecoder.js"
import { sized } from "./support/TestSize.js"

const search: LinkSearch = { pageUrl: "https://blog.test/posts/boilers", targetUrl: "https://client.test/plumbing" }
const makePage = (body: string, head = "") => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`
const makeLink = (href: string, text = "Best plumber", attributes = "") => `<a href="${href}"${attributes}>${text}</a>`
const find = (body: string, head = "", options: Partial<LinkSearch> = {}) =>
  findLink(makePage(body, head), { ...search, ...options })
const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))))

describe("LinkFinder: which href is the target", () => {
  it("finds a link whose host differs in case, with the default port and a fragment", () => {
    const finding = find(`<p>See ${makeLink("HTTPS://CLIENT.Test:443/plumbing#prices")}.</p>`)
    assert.isTrue(finding.found)
    assert.strictEqual(finding.anchorText, "Best plumber")
  })

  it("does not find a link on another port, another path case, or with a trailing slash the target lacks", () => {
    for (const href of [
      "https://client.test:8443/plumbing",
      "https://client.test/Plumbing",
      "https://client.test/plumbing/",
      "http://client.test/plumbing"
    ]) {
      assert.isFalse(find(makeLink(href)).found, href)
    }
  })

  it("takes an empty path as `/`, so a link to the bare host is a link to the home page", () => {
    assert.isTrue(find(makeLink("https://client.test"), "", { targetUrl: "https://client.test/" }).found)
    assert.isTrue(find(makeLink("https://client.test/"), "", { targetUrl: "https://CLIENT.test" }).found)
  })

  it("resolves relative hrefs against the page's address", () => {
    const onClient = { pageUrl: "https://client.test/blog/2026/post" }
    assert.isTrue(find(makeLink("../../plumbing"), "", onClient).found)
    assert.isTrue(find(makeLink("/plumbing"), "", onClient).found)
    assert.isTrue(find(makeLink("//client.test/plumbing"), "").found)
  })

  it("resolves relative hrefs against the first <base href>, and ignores a later one", () => {
    const head = `<base target="_blank"><base href="https://client.test/"><base href="https://other.test/">`
    assert.isTrue(find(makeLink("plumbing"), head).found)
    assert.isFalse(find(makeLink("plumbing"), `<base href="https://other.test/">`).found)
  })

  it("decodes character references in the href", () => {
    const finding = find(makeLink("https://client.test/plumbing?a=1&amp;b=2"), "", {
      targetUrl: "https://client.test/plumbing?a=1&b=2"
    })
    assert.isTrue(finding.found)
  })

  it("does not find the address in text, comments, scripts, textareas, <a> without href, or other elements", () => {
    const target = "https://client.test/plumbing"
    const body = [
      `<p>${target}</p>`,
      `<!-- ${makeLink(target)} -->`,
      `<script>document.write('${makeLink(target)}')</script>`,
      `<textarea>${makeLink(target)}</textarea>`,
      `<a name="x">${target}</a>`,
      `<link rel="canonical" href="${target}"><img src="${target}"><area href="${target}">`,
      `<a data-href="${target}">x</a>`
    ].join("")
    assert.isFalse(find(body).found)
  })

  it("finds nothing when the target is not a web address", () => {
    assert.isFalse(find(makeLink("mailto:a@client.test"), "", { targetUrl: "mailto:a@client.test" }).found)
  })
})

describe("LinkFinder: what it reports about the link", () => {
  it("reports nofollow, sponsored and ugc, lower-cased, once each, in that order, and no other rel value", () => {
    const link = makeLink(search.targetUrl, "x", ` rel="UGC noopener  Sponsored\tNOFOLLOW nofollow"`)
    assert.deepStrictEqual(find(link).rel, ["nofollow", "sponsored", "ugc"])
    assert.deepStrictEqual(find(makeLink(search.targetUrl, "x", ` rel="noopener noreferrer"`)).rel, [])
    assert.deepStrictEqual(find(makeLink(search.targetUrl)).rel, [])
  })

  it("reports the first link to the target: its rel and its text", () => {
    const body =
      makeLink("https://client.test/other", "other") +
      makeLink(search.targetUrl, "first", ` rel="sponsored"`) +
      makeLink(search.targetUrl, "second")
    const finding = find(body)
    assert.deepStrictEqual(finding.rel, ["sponsored"])
    assert.strictEqual(finding.anchorText, "first")
  })

  it("collapses the anchor text's whitespace across nested elements and leaves out script and style", () => {
    const text = `\n  Best&nbsp;&amp;\t<b>cheapest</b>\n\n <script>var x = 1</script><style>a{}</style><i> plumber </i>  `
    assert.strictEqual(find(makeLink(search.targetUrl, text)).anchorText, "Best & cheapest plumber")
  })

  it("takes an image's alt as the anchor text of a link without text", () => {
    assert.strictEqual(
      find(makeLink(search.targetUrl, `<img src="/logo.png" alt=" Client  logo ">`)).anchorText,
      "Client logo"
    )
    assert.strictEqual(find(makeLink(search.targetUrl, `<img src="/logo.png">`)).anchorText, "")
  })

  it("ends the anchor text where the next <a> begins, as the HTML parser closes an open link", () => {
    const body = `<a href="${search.targetUrl}">mine <a href="/next">next</a>`
    assert.strictEqual(find(body).anchorText, "mine")
  })

  it("ends the anchor text at the end of the page when the link is never closed", () => {
    assert.strictEqual(findLink(`<a href="${search.targetUrl}">open  to the end`, search).anchorText, "open to the end")
  })

  it(`keeps at most ${MAX_ANCHOR_TEXT} characters of anchor text, never splitting a character`, () => {
    const long = find(makeLink(search.targetUrl, "word ".repeat(200_000)))
    assert.strictEqual(long.anchorText?.length, MAX_ANCHOR_TEXT)
    assert.isTrue(long.anchorText?.startsWith("word word"))
    const emoji = find(makeLink(search.targetUrl, `${"a".repeat(MAX_ANCHOR_TEXT - 1)}😀 and more`))
    assert.strictEqual(emoji.anchorText, "a".repeat(MAX_ANCHOR_TEXT - 1))
  })

  it("reports no anchor text and no rel when the link is not found", () => {
    const finding = find(makeLink("https://client.test/else", "x", ` rel="nofollow"`))
    assert.deepStrictEqual(finding, { found: false, rel: [], anchorText: null, noindex: false, encoding: null })
  })
})

describe("LinkFinder: noindex", () => {
  const noindexHeads = {
    "reads <meta name=robots> and <meta name=googlebot> saying noindex or none, in any case": [
      [`<meta name="robots" content="noindex, follow">`, true],
      [`<META NAME="Robots" CONTENT="NoIndex">`, true],
      [`<meta name="googlebot" content="nofollow, noindex">`, true],
      [`<meta content="none" name="robots">`, true]
    ],
    "is not noindex for index directives, other crawlers' names or other meta tags": [
      [`<meta name="robots" content="index, nofollow">`, false],
      [`<meta name="bingbot" content="noindex">`, false],
      [`<meta name="description" content="noindex">`, false],
      [`<meta property="robots" content="noindex">`, false]
    ]
  } as const
  for (const [name, cases] of Object.entries(noindexHeads)) {
    it(name, () => {
      for (const [head, noindex] of cases)
        assert.strictEqual(find(makeLink(search.targetUrl), head).noindex, noindex, head)
    })
  }

  it("reads the robots meta in the head only, as search engines do", () => {
    const body = `<p>${makeLink("/elsewhere")}</p><meta name="robots" content="noindex">${makeLink(search.targetUrl)}`
    assert.isFalse(find(body).noindex)
    assert.isTrue(findLink(`<title>t</title><meta name=robots content=noindex><p>x</p>`, search).noindex)
  })

  it("reports noindex on a page without the link too", () => {
    const finding = find("<p>nothing here</p>", `<meta name="robots" content="noindex">`)
    assert.isFalse(finding.found)
    assert.isTrue(finding.noindex)
  })
})

// Deterministic bytes that look like nothing in particular (a linear congruential generator).
const noise = (length: number, seed: number): Uint8Array => {
  const out = new Uint8Array(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0
    out[i] = state >>> 24
  }
  return out
}

describe("LinkFinder: bytes and encodings", () => {
  it("reads a windows-1251 page declared by <meta charset>, so its Cyrillic anchor text comes out right", () => {
    const page = bytes(
      `<html><head><meta charset="windows-1251"></head><body><a href="${search.targetUrl}">`,
      [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2],
      "</a></body></html>"
    )
    const finding = findLink(page, search)
    assert.strictEqual(finding.encoding, "windows-1251")
    assert.strictEqual(finding.anchorText, "Привет")
  })

  it("reads a Shift_JIS page declared by the Content-Type header, which wins over the page's own meta", () => {
    const page = bytes(`<meta charset="utf-8"><a href="${search.targetUrl}">`, [0x93, 0xfa, 0x96, 0x7b], "</a>")
    const finding = findLink(page, { ...search, contentType: 'text/html; Charset="Shift_JIS"' })
    assert.strictEqual(finding.encoding, "shift_jis")
    assert.strictEqual(finding.anchorText, "日本")
  })

  it("lets a byte order mark win over the Content-Type header", () => {
    const page = bytes([0xef, 0xbb, 0xbf], `<a href="${search.targetUrl}">`, [0xc3, 0xa9], "</a>")
    const finding = findLink(page, { ...search, contentType: "text/html; charset=iso-8859-1" })
    assert.strictEqual(finding.encoding, "utf-8")
    assert.strictEqual(finding.anchorText, "é")
  })

  it("reads an undeclared page as UTF-8 when it is valid UTF-8, else as windows-1252", () => {
    const utf8 = findLink(bytes(`<a href="${search.targetUrl}">caf`, [0xc3, 0xa9], "</a>"), search)
    assert.deepStrictEqual([utf8.encoding, utf8.anchorText], ["utf-8", "café"])
    const legacy = findLink(bytes(`<a href="${search.targetUrl}">caf`, [0xe9], "</a>"), search)
    assert.deepStrictEqual([legacy.encoding, legacy.anchorText], ["windows-1252", "café"])
  })

  it("reads an encoding Node.js cannot decode (x-user-defined) as windows-1252, keeping ASCII links", () => {
    const finding = findLink(bytes(makeLink(search.targetUrl)), {
      ...search,
      contentType: "text/html;charset=x-user-defined"
    })
    assert.strictEqual(finding.encoding, "windows-1252")
    assert.isTrue(finding.found)
  })

  it("ignores a Content-Type charset it does not know and falls back to the page's <meta>", () => {
    const page = bytes(
      `<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">`,
      makeLink(search.targetUrl)
    )
    assert.strictEqual(findLink(page, { ...search, contentType: "text/html; charset=bogus" }).encoding, "koi8-r")
  })

  it("reads the Content-Type charset parameter, quoted or not, among others", () => {
    assert.strictEqual(charsetOf("text/html; charset=UTF-8"), "UTF-8")
    assert.strictEqual(charsetOf('text/html;foo=bar; CHARSET="koi8-r"'), "koi8-r")
    assert.isUndefined(charsetOf("text/html"))
    assert.isUndefined(charsetOf("text/html; charset="))
  })

  it("finds nothing, without failing, in a binary file given as bytes or as text", () => {
    const binary = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [...noise(256 * 1024, 7)])
    const asBytes = findLink(binary, { ...search, contentType: "image/png" })
    assert.deepStrictEqual([asBytes.found, asBytes.encoding], [false, "windows-1252"])
    assert.isFalse(findLink(binary.toString("latin1"), search).found)
    assert.isFalse(findLink(new TextDecoder().decode(binary), search).found)
  })

  it("gives the same finding however the page's bytes are cut into chunks", () => {
    const page = Buffer.concat([
      Buffer.from(`<head><meta name="robots" content="noindex"></head>${"<p>Läuft gut 日本 😀</p>".repeat(40)}`),
      Buffer.from(makeLink(search.targetUrl, " Grüße 😀 &amp; <b>mehr</b> ", ` rel="ugc"`)),
      Buffer.from("<p>after</p>")
    ])
    const whole = findLink(page, search)
    assert.deepStrictEqual(whole, {
      found: true,
      rel: ["ugc"],
      anchorText: "Grüße 😀 & mehr",
      noindex: true,
      encoding: "utf-8"
    })
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: page.length - 1 }), { maxLength: 30 }), (cuts) => {
        const ends = [...cuts.sort((a, b) => a - b), page.length]
        const chunks = ends.map((end, i) => page.subarray(i === 0 ? 0 : ends[i - 1], end))
        assert.deepStrictEqual(findLink(chunks, search), whole)
        assert.deepStrictEqual(
          findLink(
            chunks.map((chunk) => chunk.toString("latin1")),
            search
          ).found,
          true
        )
      }),
      { numRuns: sized(500, 100) }
    )
  })
})

// A full collection before and after, so that what is measured is what the finder holds.
setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void
const heapUsed = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed
}

describe("LinkFinder: large and deep pages", () => {
  const otherLink = (i: number) => `<p><a href="https://other.test/page/${i}" rel="nofollow">link number ${i}</a></p>\n`

  it("finds the link after 100,000 others, holding no more than a small part of the page meanwhile", () => {
    const finder = new LinkFinder(search)
    const before = heapUsed()
    let written = 0
    for (let i = 0; i < 100_000; i++) {
      const piece = otherLink(i)
      written += piece.length
      finder.writeText(piece)
    }
    const held = heapUsed() - before
    finder.writeText(makeLink(search.targetUrl, "the one", ` rel="sponsored"`))
    const finding = finder.end()
    assert.isAbove(written, 7_000_000)
    assert.isBelow(held, 4 * 1024 * 1024, `held ${held} bytes of a ${written}-character page`)
    assert.deepStrictEqual([finding.found, finding.anchorText, finding.rel], [true, "the one", ["sponsored"]])
  })

  it("finds a link inside 10,000 nested elements, closed or not, and inside 10,000 nested svg and math", () => {
    const link = makeLink(search.targetUrl, "deep")
    const closed = `${"<div><span>".repeat(5_000)}${link}${"</span></div>".repeat(5_000)}`
    assert.strictEqual(findLink(closed, search).anchorText, "deep")
    assert.strictEqual(findLink(`${"<div>".repeat(10_000)}${link}`, search).anchorText, "deep")
    const foreign = `${"<svg><foreignObject>".repeat(2_500)}${"<math><mi>".repeat(2_500)}${link}`
    assert.isTrue(findLink(foreign, search).found)
  })

  it("is settled once the link has been read, and not before the page ends when there is none", () => {
    const finder = new LinkFinder(search)
    finder.writeText(`<p><a href="${search.targetUrl}">start`)
    assert.isFalse(finder.settled)
    finder.writeText(" of it</a><p>rest")
    assert.isTrue(finder.settled)
    assert.strictEqual(finder.end().anchorText, "start of it")
    const without = new LinkFinder(search)
    without.writeText(otherLink(1).repeat(100))
    assert.isFalse(without.settled)
  })
})

describe("findLinkInStream", () => {
  const chunksOf = (text: string, size: number) => {
    const all = Buffer.from(text)
    return Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.subarray(i * size, (i + 1) * size))
  }

  it.effect("stops pulling the body once the link has been read", () =>
    Effect.gen(function* () {
      const page = makePage(makeLink(search.targetUrl) + "<p>filler</p>".repeat(10_000))
      const chunks = chunksOf(page, 512)
      let pulled = 0
      const body = Stream.fromIterable(chunks).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
      const finding = yield* findLinkInStream(body, search)
      assert.strictEqual(finding.anchorText, "Best plumber")
      assert.isBelow(pulled, 5)
      assert.isAbove(chunks.length, 100)
    })
  )

  it.effect("reads the whole body when the link is not there", () =>
    Effect.gen(function* () {
      const chunks = chunksOf(makePage("<p>filler</p>".repeat(1_000)), 512)
      let pulled = 0
      const body = Stream.fromIterable(chunks).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
      const finding = yield* findLinkInStream(body, search)
      assert.isFalse(finding.found)
      assert.strictEqual(pulled, chunks.length)
    })
  )

  it.effect("fails with the body's own error", () =>
    Effect.gen(function* () {
      const body = Stream.concat(Stream.fromChunk(Chunk.of(new Uint8Array([60]))), Stream.fail("reset" as const))
      const result = yield* Effect.either(findLinkInStream(body, search))
      assert.deepStrictEqual(result, Either.left("reset"))
    })
  )
})
