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

/**
 * Parses an article body the way a browser parses `innerHTML` on a `<div>` (scripting enabled), so the tree we
 * judge is the tree a reader's browser builds.
 */
export const parseBody = (source: string, observer?: (tag: StartTag) => void): Fragment => {
  const context = defaultTreeAdapter.createElement("div", html.NS.HTML, [])
  const parser = ObservedParser.getFragmentParser<DefaultTreeAdapterMap>(context, { scriptingEnabled: true })
  if (observer !== undefined && parser instanceof ObservedParser) parser.observer = observer
  parser.tokenizer.write(source, true)
  return parser.getFragment()
}

export const isElement = (node: Node): node is Element => "tagName" in node

export const isText = (node: Node): node is TextNode => node.nodeName === "#text"

export const getAttribute = (element: Element, name: string): string | undefined =>
  element.attrs.find((attr) => attr.name === name)?.value

/** Concatenated text of every descendant text node, like DOM `textContent`. */
export const textContent = (node: Node): string => {
  if (isText(node)) return node.value
  if (!("childNodes" in node)) return ""
  let text = ""
  for (const child of node.childNodes) text += textContent(child)
  return text
}

/** Calls `visit` on every element in document order (a pre-order walk). */
export const forEachElement = (node: Node, visit: (element: Element) => void): void => {
  if (!("childNodes" in node)) return
  for (const child of node.childNodes) {
    if (isElement(child)) {
      visit(child)
      forEachElement(child, visit)
    }
  }
}

/**
 * Re-adds the one leading newline that parsing `<pre>\n` swallows, so that parse then serialise is a fixed point.
 * Mutates the tree; call it only right before serialising.
 */
const protectLeadingNewlines = (node: Node): void => {
  if (!("childNodes" in node)) return
  if (isElement(node) && newlineEatingTags.has(node.tagName) && node.namespaceURI === html.NS.HTML) {
    const first = node.childNodes[0]
    if (first !== undefined && isText(first) && first.value.startsWith("\n")) first.value = "\n" + first.value
  }
  for (const child of node.childNodes) protectLeadingNewlines(child)
}

export const serializeBody = (fragment: Fragment): string => {
  protectLeadingNewlines(fragment)
  return serialize(fragment)
}
