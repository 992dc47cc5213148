import type { DiffBlock, DiffToken, TextToken } from "../Domain/WordDiff.js"
import { html, type SafeHtml, visibleControls } from "./Markup.js"

/**
 * A word diff as a writer reads it: the text rendered, removed words struck through (`del`), inserted ones marked
 * (`ins`), words whose formatting changed marked as such, protected links shown as links with their padlock. Every
 * text is escaped and every element written here is one of ours: no markup from the bodies reaches the page.
 */

/** The formatting elements a token may carry, as shown: a fixed list, so only these names are ever written. */
const shown: Readonly<Record<string, readonly [open: SafeHtml, close: SafeHtml]>> = {
  b: [html`<strong>`, html`</strong>`],
  strong: [html`<strong>`, html`</strong>`],
  i: [html`<em>`, html`</em>`],
  em: [html`<em>`, html`</em>`],
  cite: [html`<em>`, html`</em>`],
  u: [html`<u>`, html`</u>`],
  ins: [html`<u>`, html`</u>`],
  s: [html`<s>`, html`</s>`],
  strike: [html`<s>`, html`</s>`],
  del: [html`<s>`, html`</s>`],
  code: [html`<code>`, html`</code>`],
  kbd: [html`<code>`, html`</code>`],
  samp: [html`<code>`, html`</code>`],
  sub: [html`<sub>`, html`</sub>`],
  sup: [html`<sup>`, html`</sup>`],
  small: [html`<small>`, html`</small>`],
  mark: [html`<mark>`, html`</mark>`],
  q: [html`“`, html`”`]
}

/** Block elements as named in a note ("was a paragraph"), and the look of the block they give. */
const blockNames: Readonly<Record<string, string>> = {
  p: "a paragraph",
  h1: "a heading",
  h2: "a heading",
  h3: "a heading",
  h4: "a heading",
  h5: "a heading",
  h6: "a heading",
  li: "a list item",
  blockquote: "a quotation",
  pre: "preformatted text"
}

const blockClass = (tag: string) =>
  /^h[1-6]$/.test(tag) ? "heading" : tag === "li" ? "item" : tag === "blockquote" ? "quote" : tag === "pre" ? "pre" : ""

const text = (value: string): SafeHtml => (value === "\n" ? html`<br>` : html`${visibleControls(value)}`)

const formatted = (token: TextToken, inner: SafeHtml): SafeHtml =>
  token.format.reduceRight((content, name) => {
    const tags = shown[name]
    return tags === undefined ? content : html`${tags[0]}${content}${tags[1]}`
  }, inner)

const linked = (token: TextToken, inner: SafeHtml): SafeHtml =>
  token.protected !== undefined
    ? html`<mark class="protected-source" title="Protected link (${token.protected}): kept exactly by every edit"><a href="${token.href ?? ""}" rel="noopener noreferrer" target="_blank">${inner}</a></mark>`
    : token.href === null
      ? inner
      : html`<a href="${token.href}" rel="noopener noreferrer" target="_blank">${inner}</a>`

const key = (piece: DiffToken) =>
  piece.token.protected !== undefined
    ? null
    : JSON.stringify([piece.kind, piece.token.format, piece.token.href, piece.was?.format, piece.was?.href])

/** Consecutive tokens shown alike, as one run (`<del>three old words</del>`, not three). */
const runs = (tokens: ReadonlyArray<DiffToken>): Array<Array<DiffToken>> => {
  const out: Array<Array<DiffToken>> = []
  for (const piece of tokens) {
    const last = out[out.length - 1]
    if (last !== undefined && key(piece) !== null && key(last[0]!) === key(piece)) last.push(piece)
    else out.push([piece])
  }
  return out
}

/** Formatting as a note names it ("was bold, a link to …"). */
const formatNames: Readonly<Record<string, string>> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underlined",
  s: "struck through",
  strike: "struck through",
  code: "code"
}

const formatNote = (was: TextToken | undefined) => {
  if (was === undefined) return "Formatting changed"
  const names = [...new Set(was.format.map((name) => formatNames[name] ?? name))]
  if (was.href !== null) names.push(`a link to ${was.href}`)
  return `Formatting changed, was ${names.length === 0 ? "plain text" : names.join(", ")}`
}

/**
 * Words removed (`del`) or inserted (`ins`), marked so that a screen reader says so: most announce neither element, so
 * each mark says what it is in words only they read ("[removed: old]"), written in the markup rather than by the
 * stylesheet, which not every reader of the page or card applies.
 */
export const changeMark = (kind: "removed" | "inserted", content: SafeHtml): SafeHtml => {
  const said = html`<span class="visually-hidden">[${kind}: </span>${content}<span class="visually-hidden">]</span>`
  return kind === "removed" ? html`<del>${said}</del>` : html`<ins>${said}</ins>`
}

/**
 * A run as shown. The space after removed, inserted or reformatted words is left outside the mark, and after removed words
 * dropped when inserted ones follow (they bring their own): `the <del>old</del><ins>new</ins> words`.
 */
const run = (pieces: ReadonlyArray<DiffToken>, next: ReadonlyArray<DiffToken> | undefined): SafeHtml => {
  const first = pieces[0]!
  const words = pieces.map((piece) => piece.token.text).join("")
  const marked = first.kind !== "same"
  const shownWords = marked ? words.trimEnd() : words
  const content = linked(
    first.token,
    formatted(first.token, html`${shownWords.split(/(\n)/).map((part) => text(part))}`)
  )
  const after = marked && words !== shownWords && !(first.kind === "removed" && next?.[0]?.kind === "added") ? " " : ""
  switch (first.kind) {
    case "removed":
      return html`${changeMark("removed", content)}${after}`
    case "added":
      return html`${changeMark("inserted", content)}${after}`
    case "formatted":
      return html`<span class="formatted" title="${formatNote(first.was)}">${content}<span class="visually-hidden"> (${formatNote(first.was)})</span></span>${after}`
    default:
      return content
  }
}

/** A run of diffed tokens (a block's, or a title's), as rendered text. */
export const tokensView = (tokens: ReadonlyArray<DiffToken>): SafeHtml => {
  const all = runs(tokens)
  return html`${all.map((pieces, index) => run(pieces, all[index + 1]))}`
}

const blockView = (block: DiffBlock): SafeHtml => {
  if (block.kind === "gap") {
    return html`<p class="gap">… ${block.blocks} unchanged ${block.blocks === 1 ? "block" : "blocks"} …</p>`
  }
  const note =
    block.wasTag === undefined
      ? null
      : html`<span class="formatted">(was ${blockNames[block.wasTag] ?? "another block"})</span> `
  return html`<p class="${["block", block.kind, blockClass(block.tag)].filter((name) => name !== "").join(" ")}">${note}${tokensView(block.tokens)}</p>`
}

/** A body's word diff, block by block: kept blocks near a change give context, longer kept runs are folded. */
export const wordDiffView = (blocks: ReadonlyArray<DiffBlock>): SafeHtml =>
  html`<div class="word-diff">${blocks.map(blockView)}</div>`
