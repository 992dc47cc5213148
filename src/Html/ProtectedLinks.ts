import { forEachElement, getAttribute, type Node, parseBody, textContent } from "./Fragment.js"

export interface ProtectedLink {
  readonly type: "backlink" | "internal"
  readonly href: string
  readonly text: string
}

const isProtectedType = (value: string | undefined): value is ProtectedLink["type"] =>
  value === "backlink" || value === "internal"

/**
 * Every `<a data-service-protected="backlink|internal">` in document order, with its `href` and text as parsed
 * (entities decoded). An `a` carrying the attribute with any other value is not a protected link. A protected `a`
 * without `href` is still listed (with `href: ""`), so that it can neither be dropped nor forged unnoticed.
 */
export const extractProtectedLinks = (html: string): ReadonlyArray<ProtectedLink> => protectedLinksIn(parseBody(html))

/** The protected links of an already parsed body, in document order. */
export const protectedLinksIn = (node: Node): ReadonlyArray<ProtectedLink> => {
  const links: Array<ProtectedLink> = []
  forEachElement(node, (element) => {
    if (element.tagName !== "a") return
    const type = getAttribute(element, "data-service-protected")
    if (!isProtectedType(type)) return
    links.push({ type, href: getAttribute(element, "href") ?? "", text: textContent(element) })
  })
  return links
}

// JSON of a fixed-order tuple: distinct links never share a key, whatever characters their fields contain.
const keyOf = (link: ProtectedLink): string => JSON.stringify([link.type, link.href, link.text])

/** The links of `links` left over once each one present in `available` (counted with multiplicity) is matched. */
const unmatched = (links: ReadonlyArray<ProtectedLink>, available: ReadonlyArray<ProtectedLink>) => {
  const remaining = new Map<string, number>()
  for (const link of available) remaining.set(keyOf(link), (remaining.get(keyOf(link)) ?? 0) + 1)
  return links.filter((link) => {
    const count = remaining.get(keyOf(link)) ?? 0
    if (count === 0) return true
    remaining.set(keyOf(link), count - 1)
    return false
  })
}

/**
 * The protected links an edit from `current` to `next` violates; empty when the edit is allowed.
 *
 * Links are compared as a multiset of (type, href, text), so moving them is fine. Reported, in this order: the
 * links of `current` that `next` no longer has (removed, or altered in href, text or type), then the links of
 * `next` that `current` does not have (forged, or extra copies). Both bodies should be canonical (sanitised):
 * sanitising can itself duplicate a link (the parser clones a misnested `<a>`), and that must count.
 */
export const checkProtectedLinks = (current: string, next: string): ReadonlyArray<ProtectedLink> =>
  compareProtectedLinks(extractProtectedLinks(current), extractProtectedLinks(next))

/** `checkProtectedLinks` on links already extracted (the sanitiser returns those of its output). */
export const compareProtectedLinks = (
  before: ReadonlyArray<ProtectedLink>,
  after: ReadonlyArray<ProtectedLink>
): ReadonlyArray<ProtectedLink> => [...unmatched(before, after), ...unmatched(after, before)]

/** The protected links an edit violates, told apart by what the edit did to each. */
export interface ProtectedLinkChanges {
  readonly removed: ReadonlyArray<ProtectedLink>
  readonly altered: ReadonlyArray<{ readonly from: ProtectedLink; readonly to: ProtectedLink }>
  readonly added: ReadonlyArray<ProtectedLink>
}

/**
 * `compareProtectedLinks`, told apart: a link of `before` that `after` lacks and a link of `after` that `before`
 * lacks are one link altered when they share their href or their text (paired in document order); the others were
 * removed or added.
 */
export const protectedLinkChanges = (
  before: ReadonlyArray<ProtectedLink>,
  after: ReadonlyArray<ProtectedLink>
): ProtectedLinkChanges => {
  const added = [...unmatched(after, before)]
  const removed: Array<ProtectedLink> = []
  const altered: Array<{ readonly from: ProtectedLink; readonly to: ProtectedLink }> = []
  for (const from of unmatched(before, after)) {
    const at = added.findIndex((to) => to.href === from.href || to.text === from.text)
    if (at === -1) removed.push(from)
    else altered.push({ from, to: added.splice(at, 1)[0]! })
  }
  return { removed, altered, added }
}

const MAX_FORM = 200
const MAX_LISTED = 10

/** A protected link as it is written in a body (shortened when long). */
const formOf = (link: ProtectedLink) => {
  const form = `<a data-service-protected="${link.type}" href="${link.href}">${link.text}</a>`
  return form.length > MAX_FORM ? `${form.slice(0, MAX_FORM)}…` : form
}

/** What an edit did to the protected links it violates, link by link: "removed …; altered … into …; added …". */
export const describeProtectedLinkChanges = (changes: ProtectedLinkChanges): string => {
  const items = [
    ...changes.removed.map((link) => `removed ${formOf(link)}`),
    ...changes.altered.map(({ from, to }) => `altered ${formOf(from)} into ${formOf(to)}`),
    ...changes.added.map((link) => `added ${formOf(link)}`)
  ]
  const listed = items.slice(0, MAX_LISTED).join("; ")
  return items.length > MAX_LISTED ? `${listed}; and ${items.length - MAX_LISTED} more` : listed
}
