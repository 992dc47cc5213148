import type { ProtectedLink } from "./ProtectedLinks.js"
import { allowedElements, type SanitizeResult, sanitize } from "./Sanitize.js"
import { type BodyText, inlineElements, TextReader } from "./WordCount.js"

/**
 * A canonical body read as parse5's serialiser wrote it: `markup` holds its tags and character references in order,
 * `texts[i]` the text before `markup[i]` (and `texts[markup.length]` the text after the last). Nothing is decoded.
 */
interface Segments {
  readonly markup: Array<string>
  readonly texts: Array<string>
}

/** The character references the serialiser writes in text: `&amp;`, `&lt;`, `&gt;` and `&nbsp;`, and no other. */
const references: ReadonlySet<string> = new Set(["&amp;", "&lt;", "&gt;", "&nbsp;"])

const LT = 0x3c
const GT = 0x3e
const AMP = 0x26
const QUOTE = 0x22
const SEMICOLON = 0x3b

/**
 * Cuts `html` into text and markup, or `undefined` when it is not written the way the serialiser writes: a tag
 * that does not end, a `&` that starts no reference the serialiser writes. Attribute values are always in double
 * quotes there, with `"` written `&quot;`, so a `>` inside one is found by following the quotes.
 */
const segments = (html: string): Segments | undefined => {
  const markup: Array<string> = []
  const texts: Array<string> = []
  let textStart = 0
  let i = 0
  while (i < html.length) {
    const code = html.charCodeAt(i)
    if (code !== LT && code !== AMP) {
      i++
      continue
    }
    let end = i + 1
    if (code === LT) {
      let quoted = false
      while (end < html.length) {
        const c = html.charCodeAt(end)
        if (c === QUOTE) quoted = !quoted
        else if (c === GT && !quoted) break
        end++
      }
      if (end >= html.length) return undefined
    } else {
      while (end < html.length && end - i < 6 && html.charCodeAt(end) !== SEMICOLON) end++
      if (!references.has(html.slice(i, end + 1))) return undefined
    }
    texts.push(html.slice(textStart, i))
    markup.push(html.slice(i, end + 1))
    i = end + 1
    textStart = i
  }
  texts.push(html.slice(textStart))
  return { markup, texts }
}

/** Elements the serialiser writes without an end tag, of the ones a canonical body may hold. */
const voidElements: ReadonlySet<string> = new Set(["br", "hr", "img", "col"])

/**
 * Elements whose own text the parser moves elsewhere unless it is all white space (table text is fostered out of
 * the table): text directly in one of them must stay as it was.
 */
const tableContexts: ReadonlySet<string> = new Set(["table", "tbody", "thead", "tfoot", "tr", "colgroup"])

/**
 * Characters a changed text may not hold: those the serialiser escapes or the parser drops or rewrites (`>`,
 * no-break space, carriage return, NUL), every other control character but tab and line feed, and lone surrogates.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused here
const unsettledText = /[\u0000-\u0008\u000b-\u001f\u007f-\u00a0>]|\p{Surrogate}/u

const tagName = (tag: string): string => {
  const start = tag.charCodeAt(1) === 0x2f ? 2 : 1
  let end = start
  while (end < tag.length) {
    const c = tag.charCodeAt(end)
    if (c === 0x20 || c === GT || c === 0x2f) break
    end++
  }
  return tag.slice(start, end)
}

/** The characters the serialiser writes as references in text. */
const referenced: Readonly<Record<string, string>> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": "\u00a0" }

/**
 * The readable text (word count and text) of `after`, when `after` is `before` (a body the sanitiser wrote) with only the text between its
 * tags changed, such that `after` is canonical too, with the same elements, attributes and protected links;
 * `undefined` when that cannot be vouched for without the sanitiser. Every tag and character reference must be the
 * same, in the same order; a changed text may not hold a character the parser or serialiser would rewrite, nor sit
 * where the parser treats text specially (directly in a table, a row or a column group; first in a `<pre>`, whose
 * leading newline the parser drops), nor inside a protected link (whose text is part of the link).
 */
export const textAfterTextEdit = (before: string, after: string): BodyText | undefined => {
  const old = segments(before)
  const next = segments(after)
  if (old === undefined || next === undefined || old.markup.length !== next.markup.length) return undefined
  const counter = new TextReader()
  // The open elements, and of each whether it is (or is inside) a protected link.
  const open: Array<string> = []
  const inProtected: Array<boolean> = []
  for (let i = 0; i <= next.markup.length; i++) {
    const text = next.texts[i]!
    if (text !== old.texts[i]) {
      const parent = open[open.length - 1] ?? ""
      if (inProtected[inProtected.length - 1] === true || tableContexts.has(parent) || unsettledText.test(text))
        return undefined
      const previous = i > 0 ? next.markup[i - 1]! : ""
      if (previous.startsWith("<pre") && tagName(previous) === "pre") return undefined
    }
    counter.text(text)
    if (i === next.markup.length) break
    const token = next.markup[i]!
    if (token !== old.markup[i]) return undefined
    if (token.charCodeAt(0) === AMP) {
      // A reference stands for one character.
      counter.text(referenced[token]!)
      continue
    }
    const name = tagName(token)
    if (!allowedElements.has(name)) return undefined
    if (!inlineElements.has(name)) counter.boundary()
    if (token.charCodeAt(1) === 0x2f) {
      if (open.pop() !== name) return undefined
      inProtected.pop()
    } else if (!voidElements.has(name)) {
      open.push(name)
      // Conservative: any mention of the attribute makes the link's text untouchable here.
      const outer = inProtected[inProtected.length - 1] === true
      inProtected.push(outer || (name === "a" && token.includes("data-service-protected")))
    }
  }
  return open.length === 0 ? { words: counter.words, text: counter.content() } : undefined
}

/**
 * The sanitiser's answer for `after`, a body made from `before` (a body the sanitiser wrote, whose protected links
 * are `links`) by replacing text, when it can be read in one pass without parsing: only text between tags changed,
 * in ways that keep it canonical (see `textAfterTextEdit`); `undefined` when it needs the sanitiser.
 */
export const textEditResult = (
  before: string,
  links: ReadonlyArray<ProtectedLink>,
  after: string
): SanitizeResult | undefined => {
  const read = textAfterTextEdit(before, after)
  return read === undefined
    ? undefined
    : { _tag: "Ok", html: after, protectedLinks: links, wordCount: read.words, text: read.text }
}

/**
 * The sanitiser's answer for `after`, a body made from `before` by replacing text: `textEditResult` when it has
 * one, the sanitiser otherwise. Either way it is exactly what `sanitize(after)` answers (test/HtmlTextEdit.test.ts
 * compares the two on generated bodies and edits).
 */
export const sanitizeTextEdit = (before: string, links: ReadonlyArray<ProtectedLink>, after: string): SanitizeResult =>
  textEditResult(before, links, after) ?? sanitize(after)
