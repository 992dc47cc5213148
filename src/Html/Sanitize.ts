import { html } from "parse5"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS, startTagsExceed } from "./Bounds.js"
import {
  type ChildNode,
  type Element,
  type Fragment,
  isElement,
  isText,
  nestedDeeperThan,
  parseWithin,
  type StartTag,
  serializeBody,
  type TextNode
} from "./Fragment.js"
import { type ProtectedLink, protectedLinksIn } from "./ProtectedLinks.js"
import { textIn } from "./WordCount.js"

/** Elements nested deeper than this are refused: the interface's bound, and what keeps every walk of the tree cheap. */
export const MAX_HTML_DEPTH = 256

/**
 * Ok: the canonical body, with what an edit needs to know of it (read off the same tree, so no second parse): its
 * protected links and its word count. Disallowed: the body is refused, `construct` saying why for a message;
 * `limit` when that is a bound (characters, elements, depth) rather than a dangerous construct, and `tooDeep` when
 * the bound is the depth.
 */
export type SanitizeResult =
  | {
      readonly _tag: "Ok"
      readonly html: string
      readonly protectedLinks: ReadonlyArray<ProtectedLink>
      readonly wordCount: number
      /** The readable text, as the word count reads it: what search indexes. */
      readonly text: string
    }
  | {
      readonly _tag: "Disallowed"
      readonly construct: string
      readonly tooDeep: boolean
      readonly limit?: number
    }

// --- Detection: dangerous content is rejected, never silently stripped --------------------------------------

/** Elements that can run script, load active content or change how the rest of the page is parsed or resolved. */
const forbiddenElements: ReadonlySet<string> = new Set([
  "script",
  "iframe",
  "object",
  "embed",
  "style",
  "plaintext",
  "frame",
  "frameset",
  "applet",
  "base",
  "link",
  "meta",
  "svg",
  "math",
  "template"
])

const urlAttributes: ReadonlySet<string> = new Set([
  "href",
  "src",
  "action",
  "formaction",
  "xlink:href",
  "poster",
  "srcset",
  "background",
  "data",
  "cite"
])

const dangerousSchemes = ["javascript:", "data:", "vbscript:"] as const

/**
 * What a browser ignores when it reads a URL's scheme (tabs and newlines anywhere, control characters and spaces
 * around it), removed everywhere and lower-cased, so `java&#x09;script:` and `JaVaScRiPt:` look like `javascript:`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what browsers skip in URLs
const normalizeUrl = (value: string): string => value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase()

const dangerousScheme = (name: string, value: string): string | undefined => {
  // srcset is a comma-separated list of candidates; judge each one, not only the first.
  const candidates = name === "srcset" ? value.split(",") : [value]
  for (const candidate of candidates) {
    const url = normalizeUrl(candidate)
    const scheme = dangerousSchemes.find((prefix) => url.startsWith(prefix))
    if (scheme !== undefined) return scheme
  }
  return undefined
}

/** Names the first dangerous construct of a start tag: the element itself, then its attributes in source order. */
const disallowedIn = (tag: StartTag): string | undefined => {
  if (forbiddenElements.has(tag.tagName)) return `<${tag.tagName}> element`
  for (const attr of tag.attrs) {
    const name = attr.name.toLowerCase()
    if (name.startsWith("on")) return `${name} attribute`
    if (urlAttributes.has(name)) {
      const scheme = dangerousScheme(name, attr.value)
      if (scheme !== undefined) return `${scheme} URL in ${name}`
    }
  }
  return undefined
}

// --- Allow-list: everything else is reduced to the canonical body ----------------------------------------------

export const allowedElements: ReadonlySet<string> = new Set(
  [
    "h1 h2 h3 h4 h5 h6 p br hr ul ol li a strong b em i u s sub sup mark small blockquote q code pre kbd",
    "figure figcaption img table thead tbody tfoot tr th td caption colgroup col dl dt dd span abbr cite del ins"
  ]
    .join(" ")
    .split(" ")
)

const allowedAttributes: Readonly<Record<string, ReadonlySet<string>>> = {
  a: new Set(["href", "title", "rel", "target", "data-service-protected"]),
  img: new Set(["src", "alt", "title", "width", "height", "loading"]),
  th: new Set(["colspan", "rowspan", "scope"]),
  td: new Set(["colspan", "rowspan", "scope"]),
  ol: new Set(["start", "reversed", "type"]),
  col: new Set(["span"]),
  colgroup: new Set(["span"])
}

const allowedSchemes: ReadonlySet<string> = new Set(["http", "https", "mailto", "tel"])

const protectedValues: ReadonlySet<string> = new Set(["backlink", "internal"])

/** A URL is kept when it is relative or its scheme is one of http, https, mailto, tel. */
const isAllowedUrl = (value: string): boolean => {
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(normalizeUrl(value))
  return scheme === null || allowedSchemes.has(scheme[1]!)
}

const keepAttribute = (tagName: string, name: string, value: string): boolean => {
  if (allowedAttributes[tagName]?.has(name) !== true) return false
  if (name === "href" || name === "src") return isAllowedUrl(value)
  if (name === "data-service-protected") return protectedValues.has(value)
  return true
}

const isAllowed = (element: Element): boolean =>
  element.namespaceURI === html.NS.HTML && allowedElements.has(element.tagName)

/** Unwrapped elements that do not separate words: their text runs on into their neighbours'. */
const phrasingElements: ReadonlySet<string> = new Set(
  "abbr acronym bdi bdo big button data dfn font input label meter nobr option optgroup output progress rp rt ruby samp select span strike textarea time tt var wbr".split(
    " "
  )
)

const appendText = (out: Array<ChildNode>, text: TextNode, parent: Element | Fragment): void => {
  const last = out[out.length - 1]
  if (last !== undefined && isText(last)) {
    last.value += text.value
  } else {
    text.parentNode = parent
    out.push(text)
  }
}

/** A line break where an unwrapped block element stood, so that `<div>a</div><div>b</div>` stays two words. */
const blockBoundary = (out: Array<ChildNode>, parent: Element | Fragment): void => {
  const last = out[out.length - 1]
  if (last === undefined || (isText(last) && /\s$/u.test(last.value))) return
  appendText(out, { nodeName: "#text", value: "\n", parentNode: null }, parent)
}

/**
 * Appends `node` to `out`, after filtering it: allowed elements keep their allowed attributes, other elements are
 * replaced by their (filtered) children (with a word boundary around a block element's), comments and doctypes
 * go, and adjacent text is merged. Recurses per level of the tree: sanitizeOnce bounds its depth first.
 */
const appendFiltered = (out: Array<ChildNode>, node: ChildNode, parent: Element | Fragment): void => {
  if (isText(node)) {
    appendText(out, node, parent)
    return
  }
  if (!isElement(node)) return
  if (isAllowed(node)) {
    filterChildren(node)
    node.attrs = node.attrs.filter((attr) => keepAttribute(node.tagName, attr.name, attr.value))
    node.parentNode = parent
    out.push(node)
    return
  }
  const block = !phrasingElements.has(node.tagName)
  if (block) blockBoundary(out, parent)
  for (const child of node.childNodes) appendFiltered(out, child, parent)
  if (block) blockBoundary(out, parent)
}

const filterChildren = (parent: Element | Fragment): void => {
  const kept: Array<ChildNode> = []
  for (const child of parent.childNodes) appendFiltered(kept, child, parent)
  parent.childNodes = kept
}

type Pass =
  | Extract<SanitizeResult, { readonly _tag: "Disallowed" }>
  | { readonly _tag: "Ok"; readonly fragment: Fragment; readonly html: string }

const disallowed = (construct: string): Pass => ({ _tag: "Disallowed", construct, tooDeep: false })

type Refusal = Extract<SanitizeResult, { readonly _tag: "Disallowed" }>

const overBound = (construct: string, limit: number, tooDeep = false): Refusal => ({
  _tag: "Disallowed",
  construct,
  tooDeep,
  limit
})

const tooManyElements = overBound(
  `must have at most ${MAX_BODY_ELEMENTS} HTML elements (a long article has about 1,000); remove empty or repeated tags, or split it into several articles`,
  MAX_BODY_ELEMENTS
)

const sanitizeOnce = (source: string): Pass => {
  let construct: string | undefined
  const fragment = parseWithin(source, MAX_BODY_ELEMENTS, (tag) => {
    construct ??= disallowedIn(tag)
  })
  if (construct !== undefined) return disallowed(construct)
  if (fragment === undefined) return tooManyElements
  // Parsing builds a tree of any depth without recursing; the filter, parse5's serialiser and the walks that read
  // links and words afterwards recurse (or cost) per level, so the depth is bounded before any of them runs.
  if (nestedDeeperThan(fragment, MAX_HTML_DEPTH)) {
    return overBound(`HTML is nested deeper than ${MAX_HTML_DEPTH} elements`, MAX_HTML_DEPTH, true)
  }
  filterChildren(fragment)
  const html = serializeBody(fragment)
  if (html.length > MAX_BODY_CHARACTERS) {
    return overBound(
      `must be at most ${MAX_BODY_CHARACTERS} characters once sanitised, and would be ${html.length} (every element is closed and <, > and & are escaped); shorten it`,
      MAX_BODY_CHARACTERS
    )
  }
  return { _tag: "Ok", fragment, html }
}

/**
 * Unwrapping can leave nestings the parser would not build itself (`<p><button><p>` becomes `<p><p>`), so the
 * serialised text can parse into a different tree. Re-running until the text is stable makes the result a fixed
 * point: a canonical body takes one pass, other HTML two, and the rare misnesting the parser rewrites three.
 */
const maxPasses = 6

/**
 * Refuses a body over the bounds (MAX_BODY_CHARACTERS, as sent and as sanitised; MAX_BODY_ELEMENTS, counted by a
 * linear pass that stops at the bound before any tree is built, and again while parsing), then rejects dangerous
 * content (naming the first offending construct in source order) and elements nested deeper than MAX_HTML_DEPTH,
 * then reduces the rest to the canonical body: allowed elements and attributes only, serialised by parse5, with no
 * lone surrogate. Idempotent on its own output. Safe for any input: no step recurses deeper than MAX_HTML_DEPTH
 * levels, and no parse creates more than MAX_BODY_ELEMENTS elements.
 */
export const sanitize = (source: string): SanitizeResult => {
  if (source.length > MAX_BODY_CHARACTERS) {
    return overBound(
      `must be at most ${MAX_BODY_CHARACTERS} characters (it has ${source.length}); shorten it or split it into several articles`,
      MAX_BODY_CHARACTERS
    )
  }
  if (startTagsExceed(source, MAX_BODY_ELEMENTS)) return tooManyElements
  // Lone surrogates become U+FFFD, as the database's UTF-8 would make them anyway: the canonical body is exactly
  // what is stored, and its protected links can be stored as JSON (which cannot hold a lone surrogate either).
  let input = source.replace(/\p{Surrogate}/gu, "\uFFFD")
  for (let pass = 0; pass < maxPasses; pass++) {
    const result = sanitizeOnce(input)
    if (result._tag === "Disallowed") return result
    // Output equal to its input is a fixed point by definition: an already canonical body costs one pass.
    if (result.html === input) {
      const { words, text } = textIn(result.fragment)
      return {
        _tag: "Ok",
        html: result.html,
        protectedLinks: protectedLinksIn(result.fragment),
        wordCount: words,
        text
      }
    }
    input = result.html
  }
  return { _tag: "Disallowed", construct: "markup that does not settle into a stable form", tooDeep: false }
}
