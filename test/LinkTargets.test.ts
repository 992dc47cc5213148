// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { documentBase, normaliseUrl, redirectedAway, resolveHref, sameTarget } from "../src/Domain/LinkTargets.js"
import { assertAnswers } from "./support/Answers.js"
import { sized } from "./support/TestSize.js"

const page = "https://blog.test/posts/2026/boilers.html?ref=1"

// Addresses written in the ways the normalisation is about (fast-check's own webUrl takes seconds to build).
const urlArb = fc
  .record({
    scheme: fc.constantFrom("http", "https", "HTTPS", "hTtP"),
    host: fc.constantFrom("client.test", "Client.TEST", "bücher.test", "192.168.0.1", "[::1]", "xn--bcher-kva.test"),
    port: fc.constantFrom("", ":80", ":443", ":8080"),
    path: fc.array(fc.constantFrom("a", "B", "%7e", "..", ".", "x y", "ü", ""), { maxLength: 4 }),
    query: fc.option(fc.string({ unit: "grapheme-composite", maxLength: 12 })),
    fragment: fc.option(fc.string({ maxLength: 8 }))
  })
  .map(
    ({ scheme, host, port, path, query, fragment }) =>
      `${scheme}://${host}${port}${path.map((segment) => `/${segment}`).join("")}` +
      (query === null ? "" : `?${query}`) +
      (fragment === null ? "" : `#${fragment}`)
  )

describe("normaliseUrl", () => {
  it("lower-cases the scheme and the host, and keeps the path's case", () => {
    assert.strictEqual(normaliseUrl("HTTPS://Client.TEST/Plumbing/Best"), "https://client.test/Plumbing/Best")
  })

  it("drops the default port of each scheme and keeps any other", () => {
    assertAnswers(normaliseUrl, {
      "https://client.test:443/a": "https://client.test/a",
      "http://client.test:80/a": "http://client.test/a",
      "https://client.test:80/a": "https://client.test:80/a",
      "http://client.test:8080/a": "http://client.test:8080/a"
    })
  })

  it("drops the fragment, empty or not", () => {
    assertAnswers(normaliseUrl, {
      "https://client.test/a#pricing": "https://client.test/a",
      "https://client.test/a#": "https://client.test/a"
    })
  })

  it("makes an empty path `/`, and only the empty path: a trailing slash elsewhere is another page", () => {
    assertAnswers(normaliseUrl, {
      "https://client.test": "https://client.test/",
      "https://client.test?q=1": "https://client.test/?q=1"
    })
    assert.notStrictEqual(normaliseUrl("https://client.test/page"), normaliseUrl("https://client.test/page/"))
  })

  it("keeps the query as written, order included", () => {
    assert.strictEqual(normaliseUrl("https://client.test/s?b=2&a=1"), "https://client.test/s?b=2&a=1")
    assert.notStrictEqual(normaliseUrl("https://client.test/s?b=2&a=1"), normaliseUrl("https://client.test/s?a=1&b=2"))
  })

  it("keeps http and https apart, and a www host apart from the bare one", () => {
    assert.isFalse(sameTarget("http://client.test/", "https://client.test/"))
    assert.isFalse(sameTarget("https://www.client.test/", "https://client.test/"))
  })

  it("writes an international host in its xn-- form, so both spellings are the same target", () => {
    assert.strictEqual(normaliseUrl("https://Bücher.TEST/"), "https://xn--bcher-kva.test/")
    assert.isTrue(sameTarget("https://bücher.test/", "https://xn--bcher-kva.test"))
  })

  it("is undefined for a relative address, another scheme or no URL at all", () => {
    for (const input of ["/pricing", "mailto:a@client.test", "javascript:alert(1)", "ftp://client.test/", "http://"]) {
      assert.isUndefined(normaliseUrl(input), input)
    }
  })

  it("is idempotent, drops any fragment and agrees with sameTarget, however the address is written", () => {
    fc.assert(
      fc.property(urlArb, (url) => {
        const once = normaliseUrl(url)
        assert.isDefined(once)
        assert.strictEqual(normaliseUrl(once!), once)
        assert.isTrue(sameTarget(url, once!))
        assert.notInclude(once!, "#")
      }),
      { numRuns: sized(500, 50) }
    )
  })
})

describe("resolveHref", () => {
  it("resolves path-relative, root-relative, query-only and scheme-relative hrefs against the page", () => {
    assert.strictEqual(resolveHref("other.html", page), "https://blog.test/posts/2026/other.html")
    assert.strictEqual(resolveHref("../2025/", page), "https://blog.test/posts/2025/")
    assert.strictEqual(resolveHref("/about", page), "https://blog.test/about")
    assert.strictEqual(resolveHref("?ref=2", page), "https://blog.test/posts/2026/boilers.html?ref=2")
    assert.strictEqual(resolveHref("//client.test", page), "https://client.test/")
  })

  it("normalises what it resolves: host case, default port, fragment, empty path", () => {
    assert.strictEqual(resolveHref("HTTPS://CLIENT.test:443#top", page), "https://client.test/")
  })

  it("ignores whitespace around the href and tabs or newlines inside it, as browsers do", () => {
    assert.strictEqual(resolveHref("  https://client.test/a\n\tb  ", page), "https://client.test/ab")
  })

  it("resolves against the <base href>, itself resolved against the page", () => {
    assert.strictEqual(resolveHref("x", page, "/shop/"), "https://blog.test/shop/x")
    assert.strictEqual(resolveHref("x", page, "https://cdn.test/a/b"), "https://cdn.test/a/x")
    assert.strictEqual(resolveHref("https://client.test/", page, "/shop/"), "https://client.test/")
  })

  it("ignores a <base href> that does not parse or is a data: or javascript: URL", () => {
    for (const base of ["http://[bad", "data:text/html,x", "javascript:void(0)"]) {
      assert.strictEqual(resolveHref("x", page, base), "https://blog.test/posts/2026/x", base)
    }
  })

  it("is undefined for an href that points to no web page, or on a page whose address does not parse", () => {
    for (const href of ["mailto:a@client.test", "javascript:void(0)", "tel:+1", "http://[bad"]) {
      assert.isUndefined(resolveHref(href, page), href)
    }
    assert.isUndefined(resolveHref("/x", "not a url"))
  })

  it("gives documentBase the page itself when there is no <base href>", () => {
    assert.strictEqual(documentBase(page)?.href, page)
  })
})

describe("redirectedAway", () => {
  it("is false when the fetch ended where it started, fragment and default port aside", () => {
    assert.isFalse(redirectedAway("https://blog.test/a", "https://BLOG.test:443/a#x"))
  })

  it("is false for an upgrade from http to https of the same address", () => {
    assert.isFalse(redirectedAway("http://blog.test/a?x=1", "https://blog.test/a?x=1"))
  })

  it("is true for another path, host, trailing slash or query, and for a downgrade to http", () => {
    for (const final of [
      "https://blog.test/b",
      "https://www.blog.test/a",
      "https://blog.test/a/",
      "https://blog.test/a?y",
      "http://blog.test/a"
    ]) {
      assert.isTrue(redirectedAway("https://blog.test/a", final), final)
    }
  })
})
