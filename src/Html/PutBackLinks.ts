import { type DefaultTreeAdapterTypes, parseFragment } from "parse5"
import { getAttribute, isElement, isText, type Node, textContent } from "./Fragment.js"
import { type ProtectedLink, protectedLinkChanges } from "./ProtectedLinks.js"

type Element = DefaultTreeAdapterTypes.Element

/** A protected or plain `a` of a body, with where it is written in the body's source. */
interface Anchor {
  readonly link: ProtectedLink | undefined
  readonly href: string
  readonly text: string
  readonly start: number
  readonly end: number
  readonly innerStart: number
  readonly innerEnd: number
}

/** A text node of a body outside any `a`, with where it is written (its source may hold entities). */
interface Text {
  readonly value: string
  readonly start: number
  readonly end: number
}

const walk = (source: string) => {
  const anchors: Array<Anchor> = []
  const texts: Array<Text> = []
  const pending: Array<Node> = [parseFragment(source, { sourceCodeLocationInfo: true })]
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (isElement(node) && node.tagName === "a" && node.sourceCodeLocation != null) {
      const element: Element = node
      const at = node.sourceCodeLocation
      const type = getAttribute(element, "data-service-protected")
      const href = getAttribute(element, "href") ?? ""
      const text = textContent(element)
      const innerStart = at.startTag?.endOffset ?? at.startOffset
      anchors.push({
        link: type === "backlink" || type === "internal" ? { type, href, text } : undefined,
        href,
        text,
        start: at.startOffset,
        end: at.endOffset,
        innerStart,
        innerEnd: at.endTag?.startOffset ?? at.endOffset
      })
      continue
    }
    const at = isText(node) ? node.sourceCodeLocation : undefined
    if (isText(node) && at != null) texts.push({ value: node.value, start: at.startOffset, end: at.endOffset })
    if ("childNodes" in node) for (let i = node.childNodes.length - 1; i >= 0; i--) pending.push(node.childNodes[i]!)
  }
  return { anchors, texts }
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Where `text` is written in the first text node (outside any `a`) that holds it, as is or with its entities. */
const textSpot = (source: string, texts: ReadonlyArray<Text>, text: string) => {
  for (const node of texts) {
    const written = source.slice(node.start, node.end)
    for (const form of [text, escapeText(text)]) {
      const at = written.indexOf(form)
      if (at !== -1) return { start: node.start + at, end: node.start + at + form.length }
    }
  }
  return undefined
}

const same = (a: ProtectedLink, b: ProtectedLink) => a.type === b.type && a.href === b.href && a.text === b.text

/**
 * `typed` with each protected link of `current` that it lost or altered put back where it stood, so that the edit
 * keeps every protected link as the service requires. A link is put back, in this order of preference: over the `a`
 * that took its place (the same href or text, protected or not), over its text left as plain text, or else at the
 * end. Links `typed` added (forged) are left as their text. Everything else in `typed` is kept as it was written.
 */
export const putBackProtectedLinks = (current: string, typed: string): string => {
  const before = walk(current)
  const after = walk(typed)
  const originals = before.anchors.filter((anchor) => anchor.link !== undefined)
  const sourceOf = (link: ProtectedLink) => {
    const found = originals.find((anchor) => same(anchor.link!, link))
    return found === undefined ? "" : current.slice(found.start, found.end)
  }
  const changes = protectedLinkChanges(
    originals.map((anchor) => anchor.link!),
    after.anchors.flatMap((anchor) => (anchor.link === undefined ? [] : [anchor.link]))
  )
  const edits: Array<{ start: number; end: number; text: string }> = []
  const used = new Set<Anchor>()
  const takeAnchor = (test: (anchor: Anchor) => boolean) => {
    const found = after.anchors.find((anchor) => !used.has(anchor) && test(anchor))
    if (found !== undefined) used.add(found)
    return found
  }
  // A forged link (or an extra copy) becomes its own content.
  for (const link of changes.added) {
    const anchor = takeAnchor((each) => each.link !== undefined && same(each.link, link))
    if (anchor !== undefined)
      edits.push({ start: anchor.start, end: anchor.end, text: typed.slice(anchor.innerStart, anchor.innerEnd) })
  }
  const missing = [
    ...changes.altered.map(({ from, to }) => ({ from, to })),
    ...changes.removed.map((from) => ({ from, to: undefined }))
  ]
  const tail: Array<string> = []
  for (const { from, to } of missing) {
    const original = sourceOf(from)
    const anchor =
      (to === undefined ? undefined : takeAnchor((each) => each.link !== undefined && same(each.link, to))) ??
      takeAnchor(
        (each) =>
          (each.link === undefined || !originals.some((o) => same(o.link!, each.link!))) &&
          (each.href === from.href || each.text === from.text)
      )
    if (anchor !== undefined) {
      edits.push({ start: anchor.start, end: anchor.end, text: original })
      continue
    }
    const spot = from.text === "" ? undefined : textSpot(typed, after.texts, from.text)
    if (spot !== undefined && !edits.some((edit) => edit.start < spot.end && spot.start < edit.end)) {
      edits.push({ ...spot, text: original })
      continue
    }
    tail.push(original)
  }
  let result = typed
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end)
  }
  return tail.length === 0 ? result : `${result}\n<p>${tail.join(" ")}</p>`
}
