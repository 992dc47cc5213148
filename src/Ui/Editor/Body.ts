import { DOMParser, type Mark, type Node } from "prosemirror-model"
import { attributePairs, LINK_ATTRIBUTES, schema, shownAs } from "./Schema.js"

/**
 * An article body in and out of the editor. The body the editor opens is canonical HTML; what it writes back must
 * change only what the customer changed, so that the preview's diff (and the revision's) shows their change and no
 * other. Each top-level block the editor opened and nobody touched is still the same document node afterwards
 * (ProseMirror shares unchanged nodes between states): it is written back as its original source, with the
 * whitespace that stood between the blocks. Only changed or new blocks are written from the document.
 */
export interface LoadedBody {
  readonly doc: Node
  /** The source of each top-level block of `doc` as opened, by its position among the blocks then. */
  readonly sources: ReadonlyMap<Node, number>
  readonly chunks: ReadonlyArray<string>
  /** The whitespace before each chunk, then the whitespace after the last. */
  readonly gaps: ReadonlyArray<string>
  /** What separates a block that is new from its neighbour: a line break when the body had them between blocks. */
  readonly separator: string
}

/** Elements that are blocks in the schema; any other content of a block container is inline. */
const BLOCKS = new Set("p h1 h2 h3 h4 h5 h6 ul ol dl blockquote pre hr figure figcaption table".split(" "))
/** Elements whose content is blocks: a run of inline content in them is held by a paragraph marked `plain`. */
const CONTAINERS = "li, dt, dd, blockquote, td, th, figure"

const isBlank = (node: ChildNode) => node.nodeType === 3 && (node.textContent ?? "").trim() === ""
const isBlock = (node: ChildNode) => node.nodeType === 1 && BLOCKS.has((node as Element).localName)

/** The HTML of nodes in a row, as the browser serialises them (the same algorithm as the service's). */
const sourceOf = (nodes: ReadonlyArray<ChildNode>) => {
  const holder = document.createElement("div")
  for (const node of nodes) holder.append(node.cloneNode(true))
  return holder.innerHTML
}

/**
 * Splits the children of `parent` into chunks: each block element alone, each run of inline content together;
 * whitespace between blocks is a gap, not content.
 */
const chunksOf = (parent: ParentNode) => {
  const chunks: Array<{ readonly nodes: Array<ChildNode>; readonly inline: boolean }> = []
  const gaps: Array<string> = []
  let gap = ""
  let run: Array<ChildNode> | undefined
  const endRun = () => {
    if (run === undefined) return
    // Trailing whitespace of a run belongs to the gap after it.
    const trailing: Array<string> = []
    while (run.length > 0 && isBlank(run[run.length - 1]!)) trailing.unshift(run.pop()!.textContent ?? "")
    gap = trailing.join("")
    run = undefined
  }
  for (const node of [...parent.childNodes]) {
    if (node.nodeType === 8) continue
    if (run === undefined && isBlank(node)) {
      gap += node.textContent ?? ""
    } else if (isBlock(node)) {
      endRun()
      gaps.push(gap)
      gap = ""
      chunks.push({ nodes: [node], inline: false })
    } else {
      if (run === undefined) {
        gaps.push(gap)
        gap = ""
        run = []
        chunks.push({ nodes: run, inline: true })
      }
      run.push(node)
    }
  }
  endRun()
  gaps.push(gap)
  return { chunks, gaps }
}

/** A paragraph marked `plain` holding `nodes`. */
const plainParagraph = (nodes: ReadonlyArray<ChildNode>) => {
  const paragraph = document.createElement("p")
  paragraph.setAttribute("data-plain", "")
  paragraph.append(...nodes)
  return paragraph
}

/** Gives every block container's inline runs a `plain` paragraph, so the schema can hold them. */
const wrapInlineRuns = (root: ParentNode) => {
  for (const container of [...root.querySelectorAll(CONTAINERS)]) {
    const { chunks } = chunksOf(container)
    const children = chunks.map((chunk) => (chunk.inline ? plainParagraph(chunk.nodes) : chunk.nodes[0]!))
    container.replaceChildren(...(children.length === 0 ? [plainParagraph([])] : children))
  }
}

/** Opens a body (canonical HTML) as an editor document. */
export const loadBody = (html: string): LoadedBody => {
  const template = document.createElement("template")
  template.innerHTML = html
  const { chunks, gaps } = chunksOf(template.content)
  const sources = chunks.map((chunk) => sourceOf(chunk.nodes))
  const holder = document.createElement("div")
  for (const chunk of chunks) holder.append(chunk.inline ? plainParagraph(chunk.nodes) : chunk.nodes[0]!)
  wrapInlineRuns(holder)
  const doc = DOMParser.fromSchema(schema).parse(holder)
  // When each chunk became one block, the blocks can be matched to their sources.
  const matched = new Map<Node, number>()
  if (doc.childCount === chunks.length) {
    doc.forEach((node, _, index) => {
      matched.set(node, index)
    })
  }
  const between = gaps.slice(1, -1)
  return {
    doc,
    sources: matched,
    chunks: sources,
    gaps,
    separator: between.some((gap) => gap.includes("\n")) ? "\n" : ""
  }
}

// --- Writing ---------------------------------------------------------------------------------------------------

const escapeText = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\u00a0", "&nbsp;")
const escapeAttribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("\u00a0", "&nbsp;")

const attributesOf = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join("")

const markTag = (mark: Mark) => (mark.type.name === "link" ? "a" : mark.type.name)
const openMark = (mark: Mark) =>
  `<${markTag(mark)}${mark.type.name === "link" ? attributesOf(attributePairs(mark.attrs, LINK_ATTRIBUTES)) : ""}>`

/** An inline leaf: text, a line break, an image or a protected link as it was stored. */
const leafOf = (node: Node): string => {
  switch (node.type.name) {
    case "text":
      return escapeText(node.text ?? "")
    case "protected_link":
      return `<a${attributesOf(node.attrs["attributes"] as ReadonlyArray<[string, string]>)}>${node.attrs["html"] as string}</a>`
    default:
      // A line break or an image: its start tag.
      return startTag(node)?.open ?? ""
  }
}

/** The inline content of a textblock, its marks opened and closed around the runs they cover. */
const inlineOf = (node: Node) => {
  let out = ""
  const open: Array<Mark> = []
  node.forEach((child) => {
    let keep = 0
    while (keep < open.length && keep < child.marks.length && open[keep]!.eq(child.marks[keep]!)) keep++
    while (open.length > keep) out += `</${markTag(open.pop()!)}>`
    for (const mark of child.marks.slice(keep)) {
      out += openMark(mark)
      open.push(mark)
    }
    out += leafOf(child)
  })
  while (open.length > 0) out += `</${markTag(open.pop()!)}>`
  return out
}

/** The content of a block container: a `plain` paragraph with no paragraph beside it is written without <p>. */
const childrenOf = (node: Node) => {
  const parts: Array<string> = []
  node.forEach((child, _, index) => {
    const isParagraph = (at: number) => at >= 0 && at < node.childCount && node.child(at).type.name === "paragraph"
    const bare = child.type.name === "paragraph" && child.attrs["plain"] === true
    parts.push(bare && !isParagraph(index - 1) && !isParagraph(index + 1) ? inlineOf(child) : blockOf(child))
  })
  return parts.join("")
}

/** A node's start tag, with the attributes the schema keeps for it (a leaf is its start tag alone). */
const startTag = (node: Node) => {
  const shown = shownAs[node.type.name]
  if (shown === undefined) return undefined
  const tag = shown.tag(node)
  return { tag, open: `<${tag}${attributesOf(attributePairs(node.attrs, shown.names ?? []))}>` }
}

/** A block node as HTML, as the service's sanitiser would write it: the element the schema shows it as. */
const blockOf = (node: Node): string => {
  const start = startTag(node)
  if (start === undefined) return ""
  if (node.isLeaf) return start.open
  const inner = node.isTextblock ? inlineOf(node) : childrenOf(node)
  // An HTML parser drops a line break right after <pre>: one that belongs to the text is written twice.
  const lead = start.tag === "pre" && inner.startsWith("\n") ? "\n" : ""
  return `${start.open}${lead}${inner}</${start.tag}>`
}

/**
 * The body as HTML: untouched top-level blocks as they were opened, with their whitespace; changed and new ones
 * written from the document.
 */
export const writeBody = (doc: Node, loaded: LoadedBody): string => {
  let out = loaded.gaps[0] ?? ""
  let previous: number | undefined
  doc.forEach((node, _, index) => {
    const source = loaded.sources.get(node)
    if (index > 0) {
      const follows = source !== undefined && previous !== undefined && source === previous + 1
      out += follows ? (loaded.gaps[source] ?? "") : loaded.separator
    }
    const bare = node.type.name === "paragraph" && node.attrs["plain"] === true
    const alone = (at: number) => at < 0 || at >= doc.childCount || doc.child(at).type.name !== "paragraph"
    out +=
      source !== undefined
        ? loaded.chunks[source]!
        : bare && alone(index - 1) && alone(index + 1)
          ? inlineOf(node)
          : blockOf(node)
    previous = source
  })
  return out + (loaded.gaps[loaded.chunks.length] ?? "")
}
