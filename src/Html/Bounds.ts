import type { Token } from "parse5"
import { SAXParser } from "parse5-sax-parser"

/**
 * The most characters an article body may have, as sent and as stored: 256 Ki, about five times a long article
 * (about 50 KB of HTML). Every step of a write costs time in proportion to the body (parsing, the protected-link
 * check, the stored revision, every page that shows it), so the bound is what keeps one write from delaying others.
 */
export const MAX_BODY_CHARACTERS = 262_144

/**
 * The most elements an article body may have: a long article has about 1,000, a body at the character bound written
 * as ordinary prose about 5,000. Parsing costs in proportion to elements rather than characters (3 characters make
 * a `<p>`), and the parser may create elements that the source does not write (an element reopened in every
 * paragraph after it), so this is counted both in the source and while parsing.
 */
export const MAX_BODY_ELEMENTS = 10_000

/**
 * Counts start tags as parse5's tokenizer reads them (with the parser's feedback, so `<p>` inside `<textarea>` is
 * text), stopping at the first one past `limit`: a linear pass that builds no tree and keeps no text.
 */
class StartTagCounter extends SAXParser {
  count = 0

  constructor(private readonly limit: number) {
    super()
  }

  run(source: string): number {
    this.tokenizer.write(source, true)
    return this.count
  }

  override onStartTag(token: Token.TagToken): void {
    super.onStartTag(token)
    if (++this.count > this.limit) this.stop()
  }

  // Text and comments are not needed to count elements: skip building them.
  override onCharacter(): void {}
  override onWhitespaceCharacter(): void {}
  override onNullCharacter(): void {}
  override onComment(): void {}
}

/** Whether `source` writes more than `limit` start tags; reads no further than the first one past it. */
export const startTagsExceed = (source: string, limit: number): boolean =>
  new StartTagCounter(limit).run(source) > limit
