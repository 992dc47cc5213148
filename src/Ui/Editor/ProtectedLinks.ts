import { Fragment, type Node, Slice } from "prosemirror-model"
import { Plugin } from "prosemirror-state"
import type { EditorView, NodeView } from "prosemirror-view"
import { schema } from "./Schema.js"

/**
 * Protected links in the editor: shown as marked, locked spans (text and target visible, a tooltip saying why),
 * which move with the text around them but cannot be deleted, retyped or re-targeted, and which the editor cannot
 * create. The service's check stays the authority; this only makes the rule visible while typing.
 */

const attributeOf = (node: Node, name: string) =>
  (node.attrs["attributes"] as ReadonlyArray<readonly [string, string]>).find(([key]) => key === name)?.[1] ?? ""

/** What a protected link is, for counting: its attributes and its content, exactly. */
const identityOf = (node: Node) => JSON.stringify([node.attrs["attributes"], node.attrs["html"]])

const counted = new WeakMap<Node, string>()
/** The protected links of a document, as one comparable value (each link's identity, sorted). */
const protectedLinksOf = (doc: Node) => {
  let known = counted.get(doc)
  if (known === undefined) {
    const found: Array<string> = []
    doc.descendants((node) => {
      if (node.type === schema.nodes["protected_link"]) found.push(identityOf(node))
      return node.isBlock
    })
    known = found.sort().join("\n")
    counted.set(doc, known)
  }
  return known
}

/** Why a protected link is locked, in the words of its tooltip. */
export const lockedReason = (node: Node) => {
  const kind = attributeOf(node, "data-service-protected") === "internal" ? "internal link" : "backlink"
  return `Protected ${kind} to ${attributeOf(node, "href")}. It keeps its text and address so that the link stays intact; you can move it with the text around it, but not change or delete it.`
}

/** The locked span a protected link is shown as. */
class ProtectedLinkView implements NodeView {
  readonly dom: HTMLElement
  constructor(node: Node) {
    const span = document.createElement("span")
    span.className = "protected-link"
    span.contentEditable = "false"
    span.title = lockedReason(node)
    const text = document.createElement("span")
    text.className = "protected-text"
    text.textContent = node.attrs["text"] as string
    const target = document.createElement("span")
    target.className = "protected-target"
    target.textContent = attributeOf(node, "href")
    span.append(text, target)
    this.dom = span
  }
  ignoreMutation() {
    return true
  }
}

/** Protected links in a pasted slice become their plain text: the editor never creates one. */
const unprotect = (fragment: Fragment): Fragment => {
  const children: Array<Node> = []
  fragment.forEach((node) => {
    if (node.type === schema.nodes["protected_link"]) {
      const text = node.attrs["text"] as string
      if (text !== "") children.push(schema.text(text, node.marks))
    } else {
      children.push(node.copy(unprotect(node.content)))
    }
  })
  return Fragment.fromArray(children)
}

/**
 * The plugin: refuses any change that would remove, alter or add a protected link (a move is a removal and an
 * insertion in one change, so it passes), and tells the person why through `say`.
 */
export const protectedLinks = (say: (message: string) => void) =>
  new Plugin({
    filterTransaction: (transaction, state) => {
      if (!transaction.docChanged || protectedLinksOf(transaction.doc) === protectedLinksOf(state.doc)) return true
      say(
        "Protected links stay as they are: that change would remove or alter one, so it was not made. Select the text around the link instead, or move the link with the mouse."
      )
      return false
    },
    props: {
      nodeViews: { protected_link: (node) => new ProtectedLinkView(node) },
      transformPasted: (slice: Slice, view: EditorView) =>
        // A link dragged within the editor moves (the same link leaves its place), so it stays protected.
        view.dragging?.move === true ? slice : new Slice(unprotect(slice.content), slice.openStart, slice.openEnd)
    }
  })
