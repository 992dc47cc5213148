import { isElement, isText, type Node, parseBody } from "./Fragment.js"

/** Phrasing elements: text on either side of them can belong to one word (`wo<b>rd</b>`). */
const inlineElements: ReadonlySet<string> = new Set(
  "a abbr b bdi bdo cite code data del dfn em font i ins kbd mark q s samp small span strike strong sub sup time tt u var".split(
    " "
  )
)

/** Elements whose text is not read as part of the article. */
const unreadElements: ReadonlySet<string> = new Set(["script", "style", "template", "noscript"])

/** Collects the readable text, with a space at every block boundary (`<p>a</p><p>b</p>`, `a<br>b`). */
const collectText = (node: Node, parts: Array<string>): void => {
  if (isText(node)) {
    parts.push(node.value)
    return
  }
  if (!("childNodes" in node)) return
  const boundary = isElement(node) && !inlineElements.has(node.tagName)
  if (isElement(node) && unreadElements.has(node.tagName)) return
  if (boundary) parts.push(" ")
  for (const child of node.childNodes) collectText(child, parts)
  if (boundary) parts.push(" ")
}

/** Number of words in a parsed body's text. */
export const wordsIn = (node: Node): number => {
  const parts: Array<string> = []
  collectText(node, parts)
  return parts
    .join("")
    .split(/\s+/u)
    .filter((word) => word.length > 0).length
}

/** Number of words in the body's text: runs of non-whitespace (Unicode whitespace, `&nbsp;` included). */
export const wordCount = (html: string): number => wordsIn(parseBody(html))
