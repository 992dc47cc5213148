import { endTokens, pushToken, type TextBlock, type TextToken, WORDS } from "../Domain/WordDiff.js"
import { type Element, getAttribute, isElement, isText, type Node, parseBody, textContent } from "./Fragment.js"
import { inlineElements } from "./WordCount.js"

/**
 * A canonical body read as a writer reads it: blocks (paragraphs, headings, list items, …) of words, each word with
 * the formatting it is shown in. What a word diff compares, so that a one-word change is one word, not two lines of
 * markup. The tokens hold text and names only, never markup from the body.
 */

/** Inline elements whose formatting the word diff shows (and compares): a word made bold is a formatting change. */
const shownFormats: ReadonlySet<string> = new Set(
  "b strong i em u s strike del ins code kbd samp sub sup small mark q cite".split(" ")
)

/** Elements whose text is not part of the article as read. */
const unreadElements: ReadonlySet<string> = new Set(["script", "style", "template", "noscript"])

interface Context {
  readonly format: ReadonlyArray<string>
  readonly href: string | null
}

const isProtected = (value: string | undefined): value is "backlink" | "internal" =>
  value === "backlink" || value === "internal"

/** Reads the blocks of `root`: its own stack, not recursion, so any depth is safe. */
const readBlocks = (root: Node): ReadonlyArray<TextBlock> => {
  const blocks: Array<TextBlock> = []
  let tag = "p"
  let tokens: Array<TextToken> = []
  const flush = () => {
    endTokens(tokens)
    if (tokens.length > 0) blocks.push({ tag, tokens })
    tokens = []
  }
  const push = (token: TextToken) => pushToken(tokens, token)
  const words = (text: string, context: Context, pre: boolean) => {
    for (const [word] of text.matchAll(WORDS)) {
      const space = /^\s/.test(word)
      if (space && pre && word.includes("\n")) {
        for (const _ of word.matchAll(/\n/g)) push({ text: "\n", format: context.format, href: null })
      } else {
        push({ text: space ? " " : word, format: context.format, href: context.href })
      }
    }
  }
  // Each entry is a node to read in a context, or the end of a block (its tag, to resume the block it sat in).
  const pending: Array<{ node: Node; context: Context; pre: boolean } | { end: string }> = []
  const children = (node: Node, context: Context, pre: boolean) => {
    if (!("childNodes" in node)) return
    for (let i = node.childNodes.length - 1; i >= 0; i--) pending.push({ node: node.childNodes[i]!, context, pre })
  }
  children(root, { format: [], href: null }, false)
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ("end" in next) {
      flush()
      tag = next.end
      continue
    }
    const { node, context, pre } = next
    if (isText(node)) {
      words(node.value, context, pre)
    } else if (isElement(node) && !unreadElements.has(node.tagName)) {
      element(node, context, pre)
    }
  }
  function element(node: Element, context: Context, pre: boolean) {
    const name = node.tagName
    const type = name === "a" ? getAttribute(node, "data-service-protected") : undefined
    if (isProtected(type)) {
      push({ text: textContent(node), format: context.format, href: getAttribute(node, "href") ?? "", protected: type })
    } else if (name === "img") {
      push({ text: `[image: ${getAttribute(node, "alt") ?? ""}]`, format: context.format, href: context.href })
    } else if (name === "br") {
      push({ text: " ", format: context.format, href: null })
    } else if (inlineElements.has(name)) {
      const format =
        shownFormats.has(name) && !context.format.includes(name) ? [...context.format, name] : context.format
      children(node, { format, href: name === "a" ? (getAttribute(node, "href") ?? "") : context.href }, pre)
    } else {
      flush()
      pending.push({ end: tag })
      tag = name
      children(node, { format: [], href: null }, pre || name === "pre")
    }
  }
  flush()
  return blocks
}

/** The blocks of a canonical (sanitised) body, in document order. */
export const textBlocks = (body: string): ReadonlyArray<TextBlock> => readBlocks(parseBody(body))
