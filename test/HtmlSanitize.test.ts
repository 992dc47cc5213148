// @tags: unit
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type DefaultTreeAdapterTypes, parseFragment } from "parse5"
import { sanitize } from "../src/Html/Sanitize.js"
import { assertAnswers } from "./support/Answers.js"
import { soup } from "./support/HtmlSoup.js"
import { sized } from "./support/TestSize.js"

const okHtml = (input: string): string => {
  const result = sanitize(input)
  assert.strictEqual(result._tag, "Ok", `expected Ok for ${JSON.stringify(input)}, got ${JSON.stringify(result)}`)
  return result._tag === "Ok" ? result.html : ""
}

const disallowed = (input: string): string => {
  const result = sanitize(input)
  assert.strictEqual(result._tag, "Disallowed", `expected Disallowed for ${JSON.stringify(input)}`)
  return result._tag === "Disallowed" ? result.construct : ""
}

// An independent check, straight on parse5: what a browser would build from the stored body, and whether any of it runs.
const executableElements = new Set(["script", "iframe", "object", "embed", "style", "svg", "math", "frame", "base"])
const urlAttributes = new Set(["href", "src", "action", "formaction", "xlink:href", "poster", "srcset", "data", "cite"])

const executableContent = (html: string): Array<string> => {
  const found: Array<string> = []
  const walk = (node: DefaultTreeAdapterTypes.ParentNode): void => {
    for (const child of node.childNodes) {
      if (!("tagName" in child)) continue
      if (executableElements.has(child.tagName) || child.namespaceURI !== "http://www.w3.org/1999/xhtml") {
        found.push(`<${child.tagName}>`)
      }
      for (const attr of child.attrs) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what browsers skip in URLs
        const url = attr.value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase()
        if (attr.name.startsWith("on")) found.push(attr.name)
        if (urlAttributes.has(attr.name) && /(^|,)(javascript|data|vbscript):/.test(url)) found.push(attr.value)
      }
      walk(child)
    }
  }
  walk(parseFragment(html))
  return found
}

/** One test a case: `answer(html)` is `expected`. */
const answersEach = (
  answer: (html: string) => string,
  cases: ReadonlyArray<readonly [name: string, html: string, expected: string]>
) => {
  for (const [name, html, expected] of cases) {
    it(name, () => {
      assert.strictEqual(answer(html), expected)
    })
  }
}

describe("sanitize: allow-list", () => {
  it("keeps allowed elements and their allowed attributes as parse5 serialises them", () => {
    const input =
      '<h2>Title</h2><p>Some <strong>bold</strong> and <em>em</em> text with <a href="https://example.com/x?a=1&amp;b=2" title="t" rel="nofollow" target="_blank">a link</a>.</p>' +
      '<ul><li>one</li></ul><ol start="3" reversed="" type="a"><li>two</li></ol><img src="/a.png" alt="A" width="10" height="20" loading="lazy">' +
      '<table><tbody><tr><th scope="col" colspan="2">h</th></tr></tbody></table><blockquote><q>quote</q></blockquote><hr><br>'
    assert.strictEqual(okHtml(input), input)
  })

  it("keeps words apart where an unwrapped block element stood, and together around unwrapped inline ones", () => {
    const blocks = sanitize("<div>first</div><div>second</div>")
    assert.strictEqual(blocks._tag === "Ok" && blocks.wordCount, 2)
    assert.strictEqual(okHtml("<p>wo<font>rd</font></p>"), "<p>word</p>")
  })

  it("keeps http, https, mailto, tel and relative URLs in href and src", () => {
    for (const href of [
      "http://a.test/",
      "https://a.test/",
      "mailto:a@b.test",
      "tel:+441234",
      "/path",
      "../up",
      "#frag",
      "?q=1",
      "//cdn.test/x"
    ]) {
      assert.strictEqual(okHtml(`<a href="${href}">x</a>`), `<a href="${href}">x</a>`)
    }
  })

  it("drops href and src with any other scheme but keeps the element", () => {
    assert.strictEqual(okHtml('<a href="ftp://a.test/f" title="t">x</a>'), '<a title="t">x</a>')
    assert.strictEqual(okHtml('<img src="blob:https://a.test/1" alt="a">'), '<img alt="a">')
  })

  it("keeps data-service-protected only with the values backlink and internal", () => {
    assert.strictEqual(
      okHtml(
        '<a href="/a" data-service-protected="backlink">a</a><a href="/b" data-service-protected="internal">b</a>'
      ),
      '<a href="/a" data-service-protected="backlink">a</a><a href="/b" data-service-protected="internal">b</a>'
    )
    assert.strictEqual(okHtml('<a href="/c" data-service-protected="other">c</a>'), '<a href="/c">c</a>')
    assert.strictEqual(okHtml('<p data-service-protected="backlink">p</p>'), "<p>p</p>")
  })

  answersEach(okHtml, [
    [
      "unwraps form controls and metadata-like elements to their text, and lets void inputs vanish",
      "<form><input value=x><button>Go</button><textarea>note</textarea><select><option>o1</option></select></form><title>T</title>",
      "Gonoteo1\nT\n"
    ],
    [
      "unwraps elements that are not allowed, keeping their children in place",
      "<div><section><p>a <font>b</font></p></section>c</div>",
      "<p>a b</p>\nc\n"
    ],
    ["drops comments", "<p>a<!-- note -->b</p>", "<p>ab</p>"],
    ["unwraps noscript, keeping its content as text", "<noscript><p>hi</p></noscript>", "&lt;p&gt;hi&lt;/p&gt;\n"],
    [
      "drops class, style, id and other attributes that are not on the allow-list",
      '<p class="x" style="color:red" id="y">t</p><img src="a.png" class="c" data-x="1">',
      '<p>t</p><img src="a.png">'
    ]
  ])
})

describe("sanitize: disallowed constructs", () => {
  const elements = [
    "script",
    "iframe",
    "object",
    "embed",
    "style",
    "plaintext",
    "frame",
    "frameset",
    "applet",
    "base",
    "link",
    "meta",
    "svg",
    "math",
    "template"
  ]
  for (const element of elements) {
    it(`rejects a <${element}> element, naming it`, () => {
      assert.strictEqual(disallowed(`<p>ok</p><${element}></${element}>`), `<${element}> element`)
    })
  }

  it("rejects event-handler attributes in any case, naming the attribute", () => {
    assertAnswers(disallowed, {
      '<p onclick="x()">a</p>': "onclick attribute",
      "<img src=a.png OnError=alert(1)>": "onerror attribute"
    })
  })

  it("rejects javascript:, data: and vbscript: URLs, naming scheme and attribute", () => {
    assertAnswers(disallowed, {
      '<a href="javascript:alert(1)">x</a>': "javascript: URL in href",
      '<img src="data:image/png;base64,AAAA">': "data: URL in src",
      '<a href="vbscript:msgbox(1)">x</a>': "vbscript: URL in href",
      '<form action="javascript:x"></form>': "javascript: URL in action",
      '<blockquote cite="javascript:x">q</blockquote>': "javascript: URL in cite",
      '<img srcset="a.png 1x, javascript:x 2x">': "javascript: URL in srcset"
    })
  })

  it("rejects entity-encoded, mixed-case and whitespace-split javascript: URLs", () => {
    for (const href of [
      "JaVaScRiPt:alert(1)",
      "&#106;avascript:alert(1)",
      "&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)",
      "javascript&colon;alert(1)",
      "java\tscript:alert(1)",
      "java&#x09;script:alert(1)",
      "java&NewLine;script:alert(1)",
      " \u0001 javascript:alert(1)"
    ]) {
      assert.strictEqual(disallowed(`<a href="${href}">x</a>`), "javascript: URL in href", href)
    }
  })

  it("names the first offending construct in document order", () => {
    assertAnswers(disallowed, {
      '<p onclick="a()">x</p><script>b()</script>': "onclick attribute",
      '<a href="javascript:a" onclick="b()">x</a>': "javascript: URL in href",
      "<svg onload=alert(1)>": "<svg> element"
    })
  })

  it("does not mistake text that looks like markup for markup", () => {
    const text = "<p>&lt;script&gt;alert(1)&lt;/script&gt; javascript:x</p>"
    assert.strictEqual(okHtml(text), text)
  })

  answersEach(disallowed, [
    [
      "rejects an event handler on an element that would be unwrapped instead of stripping it",
      '<div onmouseover="x()">a</div>',
      "onmouseover attribute"
    ],
    [
      "rejects event handlers on tags the parser drops, such as a second body",
      "<body onload=alert(1)>x",
      "onload attribute"
    ]
  ])
})

describe("sanitize: canonical form", () => {
  it("keeps a leading newline of pre content across repeated sanitising", () => {
    const once = okHtml("<pre>\n\ncode\n</pre>")
    assert.strictEqual(once, "<pre>\n\ncode\n</pre>")
    assert.strictEqual(okHtml(once), once)
  })

  it("protects a newline that becomes the first content of pre only after unwrapping", () => {
    const once = okHtml("<pre><div>\ncode</div></pre>")
    assert.strictEqual(once, "<pre>\n\ncode\n</pre>")
    assert.strictEqual(okHtml(once), once)
  })

  it("turns lone surrogates into U+FFFD, in text and attributes, and keeps surrogate pairs", () => {
    const result = sanitize('<p>a\ud800b \u{1F600}<a href="/x\udc00" data-service-protected="internal">c\udbff</a></p>')
    assert.strictEqual(result._tag, "Ok")
    if (result._tag !== "Ok") return
    assert.strictEqual(
      result.html,
      '<p>a\ufffdb \u{1F600}<a href="/x\ufffd" data-service-protected="internal">c\ufffd</a></p>'
    )
    assert.deepStrictEqual(result.protectedLinks, [{ type: "internal", href: "/x\ufffd", text: "c\ufffd" }])
  })

  it("settles nestings that unwrapping leaves behind into what the parser would build", () => {
    const once = okHtml("<p><button><p>x</p></button></p>")
    assert.strictEqual(okHtml(once), once)
    const headings = okHtml("<h1><div><h2>x</h2></div></h1>")
    assert.strictEqual(okHtml(headings), headings)
  })

  answersEach(okHtml, [
    ["drops the single newline the parser ignores right after <pre>", "<pre>\ncode</pre>", "<pre>code</pre>"]
  ])
})

describe("sanitize: properties", () => {
  it("is idempotent: sanitising an Ok output returns it unchanged", () => {
    fc.assert(
      fc.property(soup(false), (input) => {
        const once = sanitize(input)
        assert.strictEqual(once._tag, "Ok")
        if (once._tag === "Ok") assert.deepStrictEqual(sanitize(once.html), once)
      }),
      { numRuns: sized(3000, 600) }
    )
  })

  it("never returns Ok output that contains executable content", () => {
    fc.assert(
      fc.property(soup(true), (input) => {
        const result = sanitize(input)
        if (result._tag === "Ok") assert.deepStrictEqual(executableContent(result.html), [], result.html)
      }),
      { numRuns: sized(3000, 600) }
    )
  })
})

const vectors = readFileSync(new URL("./fixtures/xss-vectors.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")

describe("sanitize: known XSS vectors", () => {
  it("has a corpus of vectors to check", () => {
    assert.isAtLeast(vectors.length, 60)
  })

  for (const [line, vector] of vectors.entries()) {
    it(`vector ${line + 1} is rejected or sanitised to inert HTML: ${vector.slice(0, 60)}`, () => {
      const result = sanitize(vector)
      if (result._tag === "Ok") assert.deepStrictEqual(executableContent(result.html), [], result.html)
    })
  }
})
