// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { extractProtectedLinks } from "../src/Html/ProtectedLinks.js"
import { MAX_HTML_DEPTH, sanitize } from "../src/Html/Sanitize.js"
import { wordCount } from "../src/Html/WordCount.js"

/** `depth` elements nested inside each other around `inner`, each opened as `open(level)`, closed or not. */
const nested = (depth: number, tag: string, inner = "x", closed = true): string =>
  `<${tag}>`.repeat(depth) + inner + (closed ? `</${tag}>`.repeat(depth) : "")

/** Tables nest three elements per level: table, tbody (added by the parser), tr, td. */
const nestedTables = (levels: number) => "<table><tr><td>".repeat(levels) + "x"

const assertTooDeep = (source: string) => {
  const result = sanitize(source)
  assert.strictEqual(result._tag, "Disallowed")
  if (result._tag !== "Disallowed") return
  assert.isTrue(result.tooDeep)
  assert.strictEqual(result.construct, `HTML is nested deeper than ${MAX_HTML_DEPTH} elements`)
}

describe("sanitize: nesting depth", () => {
  for (const tag of ["b", "div", "ul", "span", "blockquote"]) {
    it(`10,000 nested <${tag}> are refused as too deep, not a stack overflow`, () => {
      assertTooDeep(nested(10_000, tag))
      assertTooDeep(nested(10_000, tag, "x", false))
    })
  }

  it("2,000 nested tables (8,000 elements with the tbody the parser adds) are refused as too deep", () => {
    assertTooDeep(nestedTables(2_000))
  })

  it("20,000 nested <b> are refused for their number of elements before any tree is built", () => {
    const result = sanitize(nested(20_000, "b", "x", false))
    assert.isTrue(result._tag === "Disallowed" && result.limit === MAX_BODY_ELEMENTS && !result.tooDeep)
  })

  it(`${MAX_HTML_DEPTH} nested elements are kept; one more is refused`, () => {
    const deepest = nested(MAX_HTML_DEPTH, "b")
    assert.deepStrictEqual(sanitize(deepest), {
      _tag: "Ok",
      html: deepest,
      protectedLinks: [],
      wordCount: 1,
      text: "x"
    })
    assertTooDeep(nested(MAX_HTML_DEPTH + 1, "b"))
  })

  it("the depth counts every element of the source, also those the sanitiser unwraps", () => {
    assert.strictEqual(sanitize(nested(MAX_HTML_DEPTH, "div"))._tag, "Ok")
    assertTooDeep(nested(MAX_HTML_DEPTH + 1, "div"))
    assertTooDeep(`<p>${nested(MAX_HTML_DEPTH, "span")}</p>`)
  })

  it("a dangerous construct in a too deep body is reported as dangerous", () => {
    const result = sanitize(nested(1_000, "div", "<script>alert(1)</script>"))
    assert.deepStrictEqual(result, { _tag: "Disallowed", construct: "<script> element", tooDeep: false })
  })

  it("elements nested up to any depth are refused exactly when deeper than the limit", () => {
    const tag = fc.constantFrom("b", "i", "em", "div", "span", "ul", "ol", "blockquote", "section", "font")
    // Depths over the whole range and around the limit; the tags at each level are drawn at random.
    const depth = fc.oneof(
      fc.integer({ min: 1, max: 2 * MAX_HTML_DEPTH }),
      fc.integer({ min: MAX_HTML_DEPTH - 3, max: MAX_HTML_DEPTH + 3 })
    )
    const tags = depth.chain((n) => fc.array(tag, { minLength: n, maxLength: n }))
    fc.assert(
      fc.property(tags, fc.boolean(), (levels, closed) => {
        const opens = levels.map((t) => `<${t}>`).join("")
        const closes = closed
          ? [...levels]
              .reverse()
              .map((t) => `</${t}>`)
              .join("")
          : ""
        const result = sanitize(`${opens}word${closes}`)
        if (levels.length > MAX_HTML_DEPTH) {
          assert.isTrue(result._tag === "Disallowed" && result.tooDeep, opens)
        } else {
          assert.isTrue(result._tag === "Ok" && result.wordCount === 1, opens)
        }
      }),
      { numRuns: 200 }
    )
  })
})

describe("walks over a parsed body at any depth", () => {
  it("wordCount reads text 100,000 elements deep", () => {
    assert.strictEqual(wordCount(nested(100_000, "b", "one two")), 2)
    assert.strictEqual(wordCount(nested(100_000, "div", "one<p>two</p>three")), 3)
  })

  it("extractProtectedLinks finds a link 100,000 elements deep, with its text", () => {
    const link = '<a data-service-protected="backlink" href="https://example.com/"><b>deep</b> link</a>'
    assert.deepStrictEqual(extractProtectedLinks(nested(100_000, "div", link)), [
      { type: "backlink", href: "https://example.com/", text: "deep link" }
    ])
  })
})
