// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { applyReplacements } from "../src/Html/Replacements.js"
import { sanitize } from "../src/Html/Sanitize.js"
import { sanitizeTextEdit, textAfterTextEdit } from "../src/Html/TextEdit.js"
import { soup } from "./support/HtmlSoup.js"
import { sized } from "./support/TestSize.js"

const canonical = (html: string) => {
  const result = sanitize(html)
  if (result._tag !== "Ok") throw new Error(`not accepted: ${html}`)
  return result
}

/** Whether the one-pass reading vouches for `after` (made from the canonical form of `source`). */
const vouched = (source: string, after: (before: string) => string) => {
  const before = canonical(source).html
  return textAfterTextEdit(before, after(before)) !== undefined
}

describe("a text edit of a canonical body", () => {
  it("is read in one pass when only text between tags changed", () => {
    const before = canonical("<p>One <b>two</b> &amp; three</p><ul><li>four</li></ul>").html
    const after = before.replace("two", "two and a half").replace("four", "five six")
    const after1 = canonical(after)
    assert.deepStrictEqual(textAfterTextEdit(before, after), { words: after1.wordCount, text: after1.text })
    assert.deepStrictEqual(textAfterTextEdit(before, after), { words: 9, text: "One two and a half & three five six" })
  })

  it("is left to the sanitiser when a tag, an attribute or a character reference changed", () => {
    assert.isFalse(vouched('<p><a href="https://a.test/">x</a></p>', (b) => b.replace("a.test", "b.test")))
    assert.isFalse(vouched("<p>a</p>", (b) => b.replace("<p>", "<h2>").replace("</p>", "</h2>")))
    assert.isFalse(vouched("<p>a &amp; b</p>", (b) => b.replace("amp", "lt")))
    assert.isFalse(vouched("<p>a</p>", (b) => b.replace("a", "<b>a</b>")))
  })

  it("is left to the sanitiser when a changed text holds what the parser or serialiser rewrites", () => {
    for (const added of [">", "\r", "\u0000", "\u00a0", "\f", "\ud800"]) {
      assert.isFalse(
        vouched("<p>a</p>", (b) => b.replace("a", `a${added}`)),
        JSON.stringify(added)
      )
    }
    assert.isTrue(vouched("<p>a</p>", (b) => b.replace("a", "a \"b\" 'c' \t\nd")))
  })

  it("is left to the sanitiser where the parser treats text specially", () => {
    // Text in a table is moved out of it, unless it is white space.
    assert.isFalse(vouched("<table><tr><td>a</td> </tr></table>", (b) => b.replace("</td> ", "</td> x")))
    // The parser drops the newline that starts a <pre>.
    assert.isFalse(vouched("<pre>a\nb</pre>", (b) => b.replace("a", "")))
    assert.isTrue(vouched("<pre><b>a</b>\nb</pre>", (b) => b.replace("\nb", "\nc")))
    // A protected link's text is part of the link.
    const link = '<p><a href="https://p.test/" data-service-protected="backlink">partner <b>site</b></a> x</p>'
    assert.isFalse(vouched(link, (b) => b.replace("partner", "other")))
    assert.isFalse(vouched(link, (b) => b.replace("site", "place")))
    assert.isTrue(vouched(link, (b) => b.replace(" x", " y")))
  })

  it("answers exactly what the sanitiser answers, for generated bodies and replacements", () => {
    const unit = fc.constantFrom(
      ..."a b Z é €".split(" "),
      " ",
      "\n",
      "\t",
      "\r",
      "\f",
      "\u0000",
      "\u00a0",
      "\ud800",
      "<",
      ">",
      "&",
      '"',
      "'",
      "=",
      "/",
      "amp;",
      "p>",
      "</b>"
    )
    const piece = fc.string({ unit, maxLength: 6 })
    const plain = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "x y", "\n"), maxLength: 6 })
    const bodyAndEdits = soup(false)
      .map((source) => canonical(source).html)
      .chain((before) => {
        const slice = fc
          .tuple(fc.nat(Math.max(0, before.length - 1)), fc.integer({ min: 1, max: 8 }))
          .map(([start, length]) => before.slice(start, start + length))
        // Most edits are of text, as most edits people make are.
        const texts = before.split(/<[^>]*>|&[a-z]+;/).filter((text) => text !== "")
        const textSlice =
          texts.length === 0
            ? slice
            : fc
                .tuple(fc.constantFrom(...texts), fc.nat(), fc.integer({ min: 1, max: 8 }))
                .map(([text, start, length]) => text.slice(start % text.length, (start % text.length) + length))
        const replacement = fc.record({
          find: fc.oneof(textSlice, textSlice, slice, piece),
          replace: fc.oneof(plain, plain, piece),
          all: fc.boolean()
        })
        return fc.tuple(fc.constant(before), fc.array(replacement, { minLength: 1, maxLength: 4 }))
      })
    let readInOnePass = 0
    let compared = 0
    fc.assert(
      fc.property(bodyAndEdits, ([before, replacements]) => {
        const replaced = applyReplacements(before, replacements)
        if (replaced._tag !== "Ok") return
        compared++
        const full = sanitize(replaced.body)
        const links = canonical(before).protectedLinks
        if (textAfterTextEdit(before, replaced.body) !== undefined) {
          readInOnePass++
          // Vouched for: the edited body is already the sanitiser's fixed point.
          assert.strictEqual(full._tag, "Ok")
          if (full._tag === "Ok") assert.strictEqual(full.html, replaced.body)
        }
        assert.deepStrictEqual(sanitizeTextEdit(before, links, replaced.body), full)
      }),
      { numRuns: sized(5000, 1000), seed: 20261125 }
    )
    // The comparison means something only if both paths were taken often.
    assert.isAbove(readInOnePass, compared / 5, `${readInOnePass} of ${compared}`)
    assert.isAbove(compared - readInOnePass, compared / 5, `${readInOnePass} of ${compared}`)
  })
})
