// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { blockDiff, foldBlocks } from "../src/Domain/WordDiff.js"
import { textBlocks } from "../src/Html/TextBlocks.js"
import { bodyChangeView, fieldDiff } from "../src/Ui/ChangeView.js"
import { html } from "../src/Ui/Markup.js"
import { wordDiffView } from "../src/Ui/WordDiffView.js"
import { seen } from "./support/WebPages.js"

/** The word diff of two canonical bodies, as the pages show it. */
const shown = (before: string, after: string) =>
  seen(String(wordDiffView(foldBlocks(blockDiff(textBlocks(before), textBlocks(after))))))

const LINK = '<a href="https://partner.example/guide" data-service-protected="backlink">the partner’s guide</a>'

describe("word diff", () => {
  it("marks removed and inserted words in words a screen reader says, which are not shown", () => {
    const out = String(
      wordDiffView(blockDiff(textBlocks("<p>Drain the outdoor taps.</p>"), textBlocks("<p>Drain the garden taps.</p>")))
    )
    assert.include(
      out,
      'Drain the <del><span class="visually-hidden">[removed: </span>outdoor<span class="visually-hidden">]</span></del><ins><span class="visually-hidden">[inserted: </span>garden<span class="visually-hidden">]</span></ins> taps.'
    )
  })

  it("shows one word changed as that word removed and the new one inserted, nothing else", () => {
    const out = shown("<p>Drain the outdoor taps today.</p>", "<p>Drain the garden taps today.</p>")
    assert.include(out, "Drain the <del>outdoor</del><ins>garden</ins> taps today.")
    assert.strictEqual(out.match(/<del>/g)?.length, 1)
    assert.strictEqual(out.match(/<ins>/g)?.length, 1)
  })

  it("shows a protected link kept as a link with its padlock marker, neither removed nor inserted", () => {
    const out = shown(`<p>Read ${LINK} now.</p>`, `<p>Please read ${LINK} now.</p>`)
    assert.include(out, "<del>Read</del><ins>Please read</ins> <mark")
    assert.match(
      out,
      /<mark class="protected-source" title="Protected link \(backlink\)[^"]*"><a href="https:\/\/partner\.example\/guide"[^>]*>the partner’s guide<\/a><\/mark> now\./
    )
    assert.notMatch(out, /<(del|ins)><mark/)
  })

  it("shows a protected link removed or added as such", () => {
    assert.match(shown(`<p>Read ${LINK}.</p>`, "<p>Read.</p>"), /<del><mark class="protected-source"/)
    assert.match(shown("<p>Read.</p>", `<p>Read ${LINK}.</p>`), /<ins><mark class="protected-source"/)
  })

  it("shows a change of formatting only as a formatting change, not as words removed and added", () => {
    const out = shown("<p>Keep the heating on.</p>", "<p>Keep the <strong>heating</strong> on.</p>")
    assert.include(out, '<span class="formatted" title="Formatting changed, was plain text"><strong>heating</strong>')
    assert.notInclude(out, "<del>")
    assert.notInclude(out, "<ins>")
    const heading = shown("<p>Before the frost</p>", "<h2>Before the frost</h2>")
    assert.include(heading, "(was a paragraph)")
  })

  it("shows a link whose address changed as a formatting change naming the old address, and keeps lines of pre", () => {
    const out = shown('<p>See <a href="/old">the guide</a>.</p>', '<p>See <a href="/new">the guide</a>.</p>')
    assert.include(out, 'title="Formatting changed, was a link to /old"><a href="/new"')
    assert.notInclude(out, "<del>")
    assert.include(shown("<pre>a = 1\nb = 2</pre>", "<pre>a = 1\nb = 3</pre>"), "a = 1<br>b = <del>2</del><ins>3</ins>")
  })

  it("escapes HTML written as text, and never copies the body's markup", () => {
    const out = shown(
      '<p class="x" onclick="a()">Use &lt;script&gt; here</p>',
      '<p class="x">Use &lt;img src=x onerror=alert(1)&gt; here</p>'
    )
    assert.include(out, "Use &lt;<del>script</del><ins>img src=x onerror=alert(1)</ins>&gt; here")
    assert.notInclude(out, "<script")
    assert.notInclude(out, "<img")
    assert.notInclude(out, "onclick")
    assert.notInclude(out, 'class="x"')
  })

  it("folds kept blocks far from a change and shows added and removed blocks whole", () => {
    const kept = ["<p>One.</p>", "<p>Two.</p>", "<p>Three.</p>", "<p>Four.</p>"].join("")
    const out = shown(`${kept}<p>Old end.</p>`, `${kept}<p>New end.</p><p>Added.</p>`)
    assert.include(out, '<p class="gap">… 3 unchanged blocks …</p>')
    assert.include(out, '<p class="block added"><ins>Added.</ins></p>')
    assert.include(out, "<del>Old</del><ins>New</ins> end.")
  })

  it("compares a title word by word, escaped, and keeps the HTML diff behind Show HTML", () => {
    assert.strictEqual(
      seen(String(fieldDiff("Pipes in <winter>", "Pipes in <summer>"))),
      "Pipes in &lt;<del>winter</del><ins>summer</ins>&gt;"
    )
    assert.strictEqual(String(fieldDiff(null, null)), "(none)")
    const view = String(bodyChangeView("<p>a</p>", "<p>b</p>", html`<pre class="diff">-a</pre>`))
    assert.include(view, '<details class="html-diff"><summary>Show HTML</summary><pre class="diff">-a</pre></details>')
    const same = String(bodyChangeView('<p><a href="/a">x</a></p>', '<p><a href="/a" title="t">x</a></p>', html``))
    assert.include(same, "only the HTML changed")
  })
})
