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

/** Counts runs of non-white-space in the readable text, as it streams past: no text is copied. */
export class WordCounter {
  words = 0
  private inWord = false

  /** A block boundary (`<p>a</p><p>b</p>`, `a<br>b`) ends the current word. */
  boundary(): void {
    this.inWord = false
  }

  text(value: string): void {
    for (let i = 0; i < value.length; i++) {
      const space = isWhiteSpace(value.charCodeAt(i))
      if (!space && !this.inWord) this.words++
      this.inWord = !space
    }
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

/** Number of words in a parsed body's text. */
export const wordsIn = (node: Node): number => {
  const counter = new WordCounter()
  counter.visit(node)
  return counter.words
}

/** Number of words in the body's text: runs of non-whitespace (Unicode whitespace, `&nbsp;` included). */
export const wordCount = (html: string): number => wordsIn(parseBody(html))
