import {
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  defaultTreeAdapter,
  html,
  Parser,
  serialize,
  type Token
} from "parse5"

// Internal to src/Html: parse5 node types are used here and in the sibling modules, never exported further.
export type Fragment = DefaultTreeAdapterTypes.DocumentFragment
export type Node = DefaultTreeAdapterTypes.Node
export type ChildNode = DefaultTreeAdapterTypes.ChildNode
export type Element = DefaultTreeAdapterTypes.Element
export type TextNode = DefaultTreeAdapterTypes.TextNode

/** A start tag as the tokenizer saw it: lower-cased name, attribute values with entities decoded. */
export interface StartTag {
  readonly tagName: string
  readonly attrs: ReadonlyArray<{ readonly name: string; readonly value: string }>
}

/**
 * Sees every start tag token in source order, including the ones the tree builder then drops
 * (`<frameset>`, a second `<body onload=…>`), which a walk over the finished tree never shows.
 */
class ObservedParser extends Parser<DefaultTreeAdapterMap> {
  observer: ((tag: StartTag) => void) | null = null

  override onStartTag(token: Token.TagToken): void {
    this.observer?.(token)
    super.onStartTag(token)
  }
}

/** Elements in which the parser drops one leading newline and the serialiser does not put it back. */
const newlineEatingTags = new Set(["pre", "textarea", "listing"])

/** Thrown out of the parser to stop it once it has created more elements than it may. */
class TooManyElements {}

/** The default tree adapter, failing with `TooManyElements` at the element after the first `limit`. */
const boundedTreeAdapter = (limit: number): typeof defaultTreeAdapter => {
  let created = 0
  return {
    ...defaultTreeAdapter,
    createElement: (tagName, namespaceURI, attrs) => {
      if (++created > limit) throw new TooManyElements()
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs)
    }
  }
}

/**
 * Parses an article body the way a browser parses `innerHTML` on a `<div>` (scripting enabled), so the tree we
 * judge is the tree a reader's browser builds.
 */
export const parseBody = (source: string): Fragment => parseWithin(source, Number.POSITIVE_INFINITY)!

/**
 * `parseBody`, with `observer` seeing every start tag, or `undefined` when the parser would create more than
 * `maxElements` elements: it stops there, so a short source that makes the parser reopen many elements again and
 * again (each `</div>x` reopens every formatting element left open: a tree quadratic in its source) costs no more.
 */
export const parseWithin = (
  source: string,
  maxElements: number,
  observer?: (tag: StartTag) => void
): Fragment | undefined => {
  const context = defaultTreeAdapter.createElement("div", html.NS.HTML, [])
  // The fragment parser creates two elements of its own: a stand-in for the document and the root it parses into.
  const treeAdapter = boundedTreeAdapter(maxElements + 2)
  const parser = ObservedParser.getFragmentParser<DefaultTreeAdapterMap>(context, {
    scriptingEnabled: true,
    treeAdapter
  })
  if (observer !== undefined && parser instanceof ObservedParser) parser.observer = observer
  try {
    parser.tokenizer.write(source, true)
  } catch (error) {
    if (error instanceof TooManyElements) return undefined
    throw error
  }
  return parser.getFragment()
}

export const isElement = (node: Node): node is Element => "tagName" in node

export const isText = (node: Node): node is TextNode => node.nodeName === "#text"

export const getAttribute = (element: Element, name: string): string | undefined =>
  element.attrs.find((attr) => attr.name === name)?.value

// The walks below keep their own stack rather than recursing: a parsed tree can be as deep as its source has start
// tags (100,000 nested `<b>` parse fine), far deeper than the call stack.

/** Calls `visit` on `node` and then on every descendant, in document order (a pre-order walk), at any depth. */
const forEachNode = (node: Node, visit: (node: Node) => void): void => {
  const pending: Array<Node> = [node]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    visit(next)
    if ("childNodes" in next) {
      for (let i = next.childNodes.length - 1; i >= 0; i--) pending.push(next.childNodes[i]!)
    }
  }
}

/** Concatenated text of every descendant text node, like DOM `textContent`. */
export const textContent = (node: Node): string => {
  let text = ""
  forEachNode(node, (each) => {
    if (isText(each)) text += each.value
  })
  return text
}

/** Calls `visit` on every element below `node` in document order (a pre-order walk). */
export const forEachElement = (node: Node, visit: (element: Element) => void): void =>
  forEachNode(node, (each) => {
    if (each !== node && isElement(each)) visit(each)
  })

/**
 * Whether some element lies more than `max` elements deep below `node` (its child elements being at depth 1).
 * Stops at the first one found.
 */
export const nestedDeeperThan = (node: Node, max: number): boolean => {
  const pending: Array<Node> = [node]
  const depths: Array<number> = [0]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const depth = depths.pop()!
    if (depth > max) return true
    if (!("childNodes" in next)) continue
    for (const child of next.childNodes) {
      if (isElement(child)) {
        pending.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return false
}

/**
 * Re-adds the one leading newline that parsing `<pre>\n` swallows, so that parse then serialise is a fixed point.
 * Mutates the tree; call it only right before serialising.
 */
const protectLeadingNewlines = (node: Node): void =>
  forEachNode(node, (each) => {
    if (isElement(each) && newlineEatingTags.has(each.tagName) && each.namespaceURI === html.NS.HTML) {
      const first = each.childNodes[0]
      if (first !== undefined && isText(first) && first.value.startsWith("\n")) first.value = "\n" + first.value
    }
  })

/** parse5's serialiser recurses once per level: only serialise a tree that `nestedDeeperThan` has bounded. */
export const serializeBody = (fragment: Fragment): string => {
  protectLeadingNewlines(fragment)
  return serialize(fragment)
}
