import type { Token } from "parse5"
import { SAXParser } from "parse5-sax-parser"

/** The bounds of an article body, declared with the API that states them. */
export { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../Domain/Bounds.js"

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
