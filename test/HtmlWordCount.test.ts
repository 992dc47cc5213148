// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { bodyText, wordCount } from "../src/Html/WordCount.js"

describe("wordCount", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<readonly [html: string, words: number]>]> = [
    ["counts the words of the text, not of the markup", [['<p>Three <a href="/a-long-url">little</a> words</p>', 3]]],
    [
      "is 0 for an empty body or one without text",
      [
        ["", 0],
        ['<p> </p><img src="/a.png" alt="many words here"><hr>', 0]
      ]
    ],
    [
      "separates words at block boundaries",
      [
        ["<p>a</p><p>b</p>", 2],
        ["<h2>Title</h2><ul><li>one</li><li>two</li></ul>", 3],
        ["<table><tr><td>x</td><td>y</td></tr></table>", 2]
      ]
    ],
    ["separates words at line breaks", [["<p>a<br>b</p>", 2]]],
    ["does not split a word at inline markup", [["<p>wo<strong>rd</strong> and <em>an</em>other</p>", 3]]],
    ["counts text inside pre and code", [["<p>Run <code>npm test</code></p><pre>const x = 1\n</pre>", 7]]],
    [
      "splits on Unicode whitespace, including no-break spaces and newlines",
      [["<p>one&nbsp;two\u2003three\nfour\tfive</p>", 5]]
    ],
    ["decodes entities before counting", [["<p>fish&amp;chips caf&eacute;</p>", 2]]]
  ]
  for (const [name, examples] of cases) {
    it(name, () => {
      for (const [html, words] of examples) assert.strictEqual(wordCount(html), words, html)
    })
  }
})

describe("bodyText", () => {
  it("is the words the count reads, one space between two: no markup, no attribute value, no unread element", () => {
    const read = bodyText(
      '<h2>Leaks</h2><p>wo<b>rd</b> <a href="https://example.com/hidden">shown</a>&nbsp;&amp;<br>more</p><img alt="alt text"><noscript>x</noscript>'
    )
    assert.deepStrictEqual(read, { words: 5, text: "Leaks word shown & more" })
  })
})

describe("wordCount on generated text", () => {
  it("counts the runs of non-white-space that splitting on \\s finds", () => {
    // Every character that \s matches, and some that it does not (U+180E, U+200B, U+0085 are not white space).
    const unit = fc.constantFrom(
      ..."ab\t\n\u000b\f\r \u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u180e\u200b\u0085".split(
        ""
      )
    )
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 20 }), (text) => {
        const expected = text.split(/\s+/u).filter((word) => word !== "").length
        assert.strictEqual(wordCount(`<p>${text.replace(/\r/g, "\n")}</p>`), expected)
      }),
      { numRuns: 2000 }
    )
  })
})
