import {
  type Attrs,
  type DOMOutputSpec,
  type MarkSpec,
  type Node,
  type NodeSpec,
  Schema,
  type TagParseRule
} from "prosemirror-model"

/**
 * The editor's document schema: exactly the elements and attributes the service's sanitiser keeps (CONTRACT,
 * "Article writes"), so that what the editor can make is what the service stores. Protected links are a node of
 * their own (an atom: moved whole, never opened); every other link is a mark. Anything else a paste brings is
 * unwrapped to its text by the parser, or dropped with its content when it can only be code.
 */

/** What a browser ignores in a URL's scheme, removed, lower-cased: `java&#x09;script:` reads as `javascript:`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what browsers skip in URLs
const normalizeUrl = (value: string) => value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase()

/** A URL the service keeps: relative, or http, https, mailto or tel. */
export const isAllowedUrl = (value: string): boolean => {
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(normalizeUrl(value))
  return scheme === null || ["http", "https", "mailto", "tel"].includes(scheme[1] ?? "")
}

/** Attributes of a node or mark, each absent (null) until the element has it. */
const optional = (names: ReadonlyArray<string>): Record<string, { default: null }> =>
  Object.fromEntries(names.map((name) => [name, { default: null }]))

/** Reads the named attributes of an element (null when it lacks one). */
const read =
  (names: ReadonlyArray<string>) =>
  (dom: HTMLElement): Attrs =>
    Object.fromEntries(names.map((name) => [name, dom.getAttribute(name)]))

/** The attributes of a node or mark as `name="value"` pairs, in the schema's order, the absent ones left out. */
export const attributePairs = (attrs: Attrs, names: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> =>
  names.flatMap((name) => (typeof attrs[name] === "string" ? [[name, attrs[name] as string] as const] : []))

export const LINK_ATTRIBUTES = ["href", "title", "rel", "target"] as const
export const IMAGE_ATTRIBUTES = ["src", "alt", "title", "width", "height", "loading"] as const
export const CELL_ATTRIBUTES = ["colspan", "rowspan", "scope"] as const
export const LIST_ATTRIBUTES = ["start", "reversed", "type"] as const

/** Elements whose content is only code or embedded content: dropped whole when a paste brings them. */
const dropped: ReadonlyArray<TagParseRule> = [
  "script",
  "style",
  "iframe",
  "object",
  "embed",
  "template",
  "noscript",
  "svg",
  "math",
  "canvas",
  "video",
  "audio",
  "form",
  "input",
  "button",
  "select",
  "textarea",
  "head",
  "title",
  "meta",
  "link"
].map((tag) => ({ tag, ignore: true }))

const block = (spec: NodeSpec): NodeSpec => ({ group: "block", ...spec })

const parsed: Record<string, NodeSpec> = {
  doc: { content: "block+", parseDOM: dropped },
  // `plain`: inline content that had no <p> around it (in a list item, a cell, at the top): written back without one.
  paragraph: block({
    content: "inline*",
    attrs: { plain: { default: false } },
    parseDOM: [{ tag: "p", getAttrs: (dom) => ({ plain: dom.hasAttribute("data-plain") }) }]
  }),
  heading: block({
    content: "inline*",
    attrs: { level: { default: 2 } },
    defining: true,
    parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level } }))
  }),
  blockquote: block({ content: "block+", defining: true, parseDOM: [{ tag: "blockquote" }] }),
  horizontal_rule: block({ parseDOM: [{ tag: "hr" }] }),
  code_block: block({
    content: "inline*",
    marks: "_",
    code: true,
    defining: true,
    parseDOM: [{ tag: "pre", preserveWhitespace: "full" }]
  }),
  bullet_list: block({ content: "list_item+", parseDOM: [{ tag: "ul" }] }),
  ordered_list: block({
    content: "list_item+",
    attrs: optional(LIST_ATTRIBUTES),
    parseDOM: [{ tag: "ol", getAttrs: read(LIST_ATTRIBUTES) }]
  }),
  list_item: { content: "block+", defining: true, parseDOM: [{ tag: "li" }] },
  description_list: block({
    content: "(description_term | description_details)+",
    parseDOM: [{ tag: "dl" }]
  }),
  description_term: { content: "block+", defining: true, parseDOM: [{ tag: "dt" }] },
  description_details: { content: "block+", defining: true, parseDOM: [{ tag: "dd" }] },
  figure: block({ content: "block+", parseDOM: [{ tag: "figure" }] }),
  figcaption: block({ content: "inline*", parseDOM: [{ tag: "figcaption" }] }),
  table: block({
    content: "table_caption? table_colgroup* table_section+",
    isolating: true,
    parseDOM: [{ tag: "table" }]
  }),
  table_caption: { content: "inline*", parseDOM: [{ tag: "caption" }] },
  table_colgroup: {
    content: "table_col*",
    attrs: optional(["span"]),
    parseDOM: [{ tag: "colgroup", getAttrs: read(["span"]) }]
  },
  table_col: { attrs: optional(["span"]), parseDOM: [{ tag: "col", getAttrs: read(["span"]) }] },
  table_section: {
    content: "table_row+",
    attrs: { tag: { default: "tbody" } },
    parseDOM: ["thead", "tbody", "tfoot"].map((tag) => ({ tag, attrs: { tag } }))
  },
  table_row: { content: "table_cell+", parseDOM: [{ tag: "tr" }] },
  table_cell: {
    content: "block+",
    isolating: true,
    attrs: { tag: { default: "td" }, ...optional(CELL_ATTRIBUTES) },
    parseDOM: ["td", "th"].map((tag) => ({
      tag,
      getAttrs: (dom: HTMLElement) => ({ tag, ...read(CELL_ATTRIBUTES)(dom) })
    }))
  },
  text: { group: "inline" },
  hard_break: { group: "inline", inline: true, selectable: false, parseDOM: [{ tag: "br" }] },
  image: {
    group: "inline",
    inline: true,
    draggable: true,
    attrs: optional(IMAGE_ATTRIBUTES),
    parseDOM: [
      {
        tag: "img[src]",
        getAttrs: (dom) => (isAllowedUrl(dom.getAttribute("src") ?? "") ? read(IMAGE_ATTRIBUTES)(dom) : false)
      }
    ]
  },
  /**
   * `<a data-service-protected="…" href="…">text</a>`, kept exactly as stored: its attributes in order and its inner
   * HTML. An atom: it can be selected and moved, never edited from inside.
   */
  protected_link: {
    group: "inline",
    inline: true,
    atom: true,
    draggable: true,
    attrs: { attributes: { default: [] }, html: { default: "" }, text: { default: "" } },
    parseDOM: [
      {
        tag: "a[data-service-protected]",
        priority: 60,
        getAttrs: (dom) => ({
          attributes: [...dom.attributes].map((attr) => [attr.name, attr.value]),
          html: dom.innerHTML,
          text: dom.textContent ?? ""
        })
      }
    ]
  }
}

/**
 * How each node shows in the editor (and on the clipboard): its element, the named attributes it has, and its
 * content unless it is a leaf. Protected links show through their own view (ProtectedLinks.ts); on the clipboard
 * they are the link as stored.
 */
export const shownAs: Record<string, { readonly tag: (node: Node) => string; readonly names?: ReadonlyArray<string> }> =
  {
    paragraph: { tag: () => "p" },
    heading: { tag: (node) => `h${node.attrs["level"]}` },
    blockquote: { tag: () => "blockquote" },
    horizontal_rule: { tag: () => "hr" },
    code_block: { tag: () => "pre" },
    bullet_list: { tag: () => "ul" },
    ordered_list: { tag: () => "ol", names: LIST_ATTRIBUTES },
    list_item: { tag: () => "li" },
    description_list: { tag: () => "dl" },
    description_term: { tag: () => "dt" },
    description_details: { tag: () => "dd" },
    figure: { tag: () => "figure" },
    figcaption: { tag: () => "figcaption" },
    table: { tag: () => "table" },
    table_caption: { tag: () => "caption" },
    table_colgroup: { tag: () => "colgroup", names: ["span"] },
    table_col: { tag: () => "col", names: ["span"] },
    table_section: { tag: (node) => node.attrs["tag"] as string },
    table_row: { tag: () => "tr" },
    table_cell: { tag: (node) => node.attrs["tag"] as string, names: CELL_ATTRIBUTES },
    hard_break: { tag: () => "br" },
    image: { tag: () => "img", names: IMAGE_ATTRIBUTES }
  }

const storedLink = (node: Node) => {
  const link = document.createElement("a")
  for (const [name, value] of node.attrs["attributes"] as ReadonlyArray<[string, string]>)
    link.setAttribute(name, value)
  link.textContent = node.attrs["text"] as string
  return link
}

const nodes: Record<string, NodeSpec> = Object.fromEntries(
  Object.entries(parsed).map(([name, spec]) => {
    const shown = shownAs[name]
    const render =
      name === "protected_link"
        ? storedLink
        : shown === undefined
          ? undefined
          : (node: Node): DOMOutputSpec => {
              const attrs = Object.fromEntries(attributePairs(node.attrs, shown.names ?? []))
              return node.isLeaf ? [shown.tag(node), attrs] : [shown.tag(node), attrs, 0]
            }
    return [name, render === undefined ? spec : { ...spec, toDOM: render }]
  })
)

/** Inline elements kept as marks of the same name, outermost first when they nest. */
export const TEXT_MARKS = [
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "del",
  "ins",
  "mark",
  "small",
  "sub",
  "sup",
  "q",
  "cite",
  "abbr",
  "span",
  "kbd",
  "code"
] as const

const marks: Record<string, MarkSpec> = {
  link: {
    attrs: optional(LINK_ATTRIBUTES),
    inclusive: false,
    parseDOM: [
      {
        tag: "a",
        getAttrs: (dom) => {
          const href = dom.getAttribute("href")
          return href === null || isAllowedUrl(href) ? read(LINK_ATTRIBUTES)(dom) : false
        }
      }
    ],
    toDOM: (mark) => ["a", Object.fromEntries(attributePairs(mark.attrs, LINK_ATTRIBUTES)), 0]
  },
  ...Object.fromEntries(
    TEXT_MARKS.map((tag) => [tag, { parseDOM: [{ tag }], toDOM: () => [tag, 0] } satisfies MarkSpec])
  )
}

export const schema = new Schema({ nodes, marks })
