import { isElement, isText, type Node, parseBody } from "./Fragment.js"

/** Phrasing elements: text on either side of them can belong to one word (`wo<b>rd</b>`). */
export const inlineElements: ReadonlySet<string> = new Set(
  "a abbr b bdi bdo cite code data del dfn em font i ins kbd mark q s samp small span strike strong sub sup time tt u var".split(
    " "
  )
)

/** Elements whose text is not read as part of the article. */
const unreadElements: ReadonlySet<string> = new Set(["script", "style", "template", "noscript"])

/** What `\s` matches in a JavaScript pattern: the Unicode white space characters and the byte order mark. */
const isWhiteSpace = (code: number): boolean =>
  code <= 0x20
    ? code === 0x20 || (code >= 0x09 && code <= 0x0d)
    : code >= 0xa0 &&
      (code === 0xa0 ||
        code === 0x1680 ||
        (code >= 0x2000 && code <= 0x200a) ||
        code === 0x2028 ||
        code === 0x2029 ||
        code === 0x202f ||
        code === 0x205f ||
        code === 0x3000 ||
        code === 0xfeff)

/**
 * Reads the readable text as it streams past, the one reading of it that every use shares: it counts the runs of
 * non-white-space (the word count) and keeps the text those words are (what search indexes), so that a word counted
 * is a word found and markup or attribute values are neither.
 */
export class TextReader {
  words = 0
  private inWord = false
  private readonly parts: Array<string> = []

  /** A block boundary (`<p>a</p><p>b</p>`, `a<br>b`) ends the current word. */
  boundary(): void {
    if (this.inWord) this.parts.push(" ")
    this.inWord = false
  }

  text(value: string): void {
    for (let i = 0; i < value.length; i++) {
      const space = isWhiteSpace(value.charCodeAt(i))
      if (!space && !this.inWord) this.words++
      this.inWord = !space
    }
    this.parts.push(value)
  }

  /** The text read: its words in order, one space between two (white space and block boundaries alike). */
  content(): string {
    return this.parts.join("").replace(/\s+/g, " ").trim()
  }

  /** Reads the text below `root` in document order; its own stack, not recursion, so any depth is safe. */
  visit(root: Node): void {
    // `null` marks where a block element ends: the boundary after its children.
    const pending: Array<Node | null> = [root]
    while (pending.length > 0) {
      const node = pending.pop()!
      if (node === null) {
        this.boundary()
        continue
      }
      if (isText(node)) {
        this.text(node.value)
        continue
      }
      if (!("childNodes" in node)) continue
      if (isElement(node) && unreadElements.has(node.tagName)) continue
      if (isElement(node) && !inlineElements.has(node.tagName)) {
        this.boundary()
        pending.push(null)
      }
      for (let i = node.childNodes.length - 1; i >= 0; i--) pending.push(node.childNodes[i]!)
    }
  }
}

/** A body's readable text: its words, and the text they are (see TextReader). */
export interface BodyText {
  readonly words: number
  readonly text: string
}

/** The readable text of a parsed body. */
export const textIn = (node: Node): BodyText => {
  const reader = new TextReader()
  reader.visit(node)
  return { words: reader.words, text: reader.content() }
}

/** The body's readable text (see TextReader). */
export const bodyText = (html: string): BodyText => textIn(parseBody(html))

/** Number of words in the body's text: runs of non-whitespace (Unicode whitespace, `&nbsp;` included). */
export const wordCount = (html: string): number => bodyText(html).words
