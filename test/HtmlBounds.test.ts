// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS, startTagsExceed } from "../src/Html/Bounds.js"
import { applyReplacements } from "../src/Html/Replacements.js"
import { type SanitizeResult, sanitize } from "../src/Html/Sanitize.js"
import { proseBody } from "./support/Bodies.js"

const assertOverBound = (result: SanitizeResult, limit: number, words: string) => {
  assert.strictEqual(result._tag, "Disallowed")
  if (result._tag !== "Disallowed") return
  assert.strictEqual(result.limit, limit)
  assert.isFalse(result.tooDeep)
  assert.include(result.construct, words)
}

describe("sanitize: the body's bounds", () => {
  it(`a body of exactly ${MAX_BODY_CHARACTERS} characters is kept; one more is refused with limit`, () => {
    const longest = proseBody(MAX_BODY_CHARACTERS)
    const kept = sanitize(longest)
    assert.isTrue(kept._tag === "Ok" && kept.html === longest)
    assertOverBound(sanitize(`${longest}x`), MAX_BODY_CHARACTERS, `at most ${MAX_BODY_CHARACTERS} characters`)
  })

  it(`${MAX_BODY_ELEMENTS} elements are kept; one more is refused with limit`, () => {
    const most = "<p>x</p>".repeat(MAX_BODY_ELEMENTS)
    const kept = sanitize(most)
    assert.isTrue(kept._tag === "Ok" && kept.html === most)
    assertOverBound(sanitize(`${most}<b>x</b>`), MAX_BODY_ELEMENTS, `at most ${MAX_BODY_ELEMENTS} HTML elements`)
  })

  it("repeated <p> or <a> up to the character bound are refused for their number of elements", () => {
    for (const tag of ["<p>", "<a>", "<a href=x>"]) {
      const body = tag.repeat(Math.floor(MAX_BODY_CHARACTERS / tag.length))
      assertOverBound(sanitize(body), MAX_BODY_ELEMENTS, "HTML elements")
    }
  })

  it("the count stops at the bound: the tokenizer pass reads no further than the first start tag past it", () => {
    assert.isFalse(startTagsExceed("<p>x".repeat(MAX_BODY_ELEMENTS), MAX_BODY_ELEMENTS))
    assert.isTrue(startTagsExceed("<p>x".repeat(MAX_BODY_ELEMENTS + 1), MAX_BODY_ELEMENTS))
    // Tags inside raw text are text, as the parser reads them.
    assert.isFalse(startTagsExceed(`<textarea>${"<p>".repeat(20)}</textarea>`, 10))
  })

  it("a short body whose parse would create more elements than the bound (reopened formatting) is refused", () => {
    // 100 formatting elements left open, reopened by the parser after each of 120 closed blocks: 300 start tags
    // in 3 KB of source, but a tree of 12,000 elements. The parse stops at the bound.
    const open = Array.from({ length: 100 }, (_, i) => `<b id=${i}>`).join("")
    const body = `${"<div>".repeat(120)}${open}${"</div>x".repeat(120)}`
    assert.isFalse(startTagsExceed(body, MAX_BODY_ELEMENTS))
    assertOverBound(sanitize(body), MAX_BODY_ELEMENTS, "HTML elements")
  })

  it("a body that the sanitiser's serialisation makes longer than the bound is refused as it would be stored", () => {
    // 100,000 ampersands: within the bound as sent, five times as long once written as &amp;.
    const body = `<p>${"&".repeat(100_000)}</p>`
    assertOverBound(sanitize(body), MAX_BODY_CHARACTERS, "once sanitised")
  })

  it("no body the sanitiser accepts is longer than the bound", () => {
    for (const body of [proseBody(MAX_BODY_CHARACTERS), "<p>".repeat(3_000), `<p>${"&".repeat(50_000)}</p>`]) {
      const result = sanitize(body)
      if (result._tag === "Ok") assert.isAtMost(result.html.length, MAX_BODY_CHARACTERS)
    }
  })
})

describe("applyReplacements: the body's character bound", () => {
  it("a replacement that would make the body too long is TooLong with its index and length, before it is built", () => {
    const body = "<p>a a a a</p>"
    const result = applyReplacements(
      body,
      [
        { find: "<p>", replace: "<p>" },
        { find: "a", replace: "b".repeat(100), all: true }
      ],
      300
    )
    assert.deepStrictEqual(result, { _tag: "TooLong", index: 1, length: body.length + 4 * 99 })
    // Text beyond Latin-1 is counted in characters too.
    assert.deepStrictEqual(applyReplacements("<p>é</p>", [{ find: "é", replace: "ü".repeat(10) }], 17), {
      _tag: "Ok",
      body: `<p>${"ü".repeat(10)}</p>`
    })
    assert.deepStrictEqual(applyReplacements("<p>é</p>", [{ find: "é", replace: "ü".repeat(11) }], 17), {
      _tag: "TooLong",
      index: 0,
      length: 18
    })
  })
})
