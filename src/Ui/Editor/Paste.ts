/**
 * HTML pasted from a word processor, made plain before the schema reads it. Word brings conditional comments,
 * `<o:p>` elements and styled spans; Google Docs wraps everything in a `<b id="docs-internal-guid-…">` and marks bold
 * and italic with inline styles. Styles become the elements they mean (strong, em, sup, sub), and the spans and
 * wrappers go, their text kept; whatever else the schema does not know is unwrapped or dropped by its parser.
 * The HTML is parsed in an inert document: nothing in it loads or runs.
 */
export const cleanPastedHtml = (html: string): string => {
  const parsed = new DOMParser().parseFromString(html, "text/html")
  const body = parsed.body
  const walker = parsed.createTreeWalker(body, NodeFilter.SHOW_COMMENT)
  const comments: Array<Node> = []
  while (walker.nextNode()) comments.push(walker.currentNode)
  for (const comment of comments) comment.parentNode?.removeChild(comment)

  const unwrap = (element: Element) => element.replaceWith(...element.childNodes)
  const wrapIn = (element: Element, tag: string) => {
    const wrapper = parsed.createElement(tag)
    wrapper.append(...element.childNodes)
    element.append(wrapper)
  }
  for (const element of [...body.querySelectorAll("*")]) {
    const tag = element.localName
    // Word's own elements (o:p, w:sdt, v:shape…): an empty paragraph mark goes, anything else keeps its text.
    if (tag.includes(":")) {
      if ((element.textContent ?? "").trim() === "") element.remove()
      else unwrap(element)
      continue
    }
    if (tag === "b" && (element.getAttribute("id") ?? "").startsWith("docs-internal-guid")) {
      unwrap(element)
      continue
    }
    if (tag === "span" || tag === "font") {
      const style = (element.getAttribute("style") ?? "").toLowerCase().replace(/\s+/g, "")
      const weight = /font-weight:(bold|bolder|[6-9]00)/.test(style)
      const italic = /font-style:italic/.test(style)
      const raised = /vertical-align:super/.test(style)
      const lowered = /vertical-align:sub/.test(style)
      if (weight) wrapIn(element, "strong")
      if (italic) wrapIn(element, "em")
      if (raised) wrapIn(element, "sup")
      if (lowered) wrapIn(element, "sub")
      unwrap(element)
    }
  }
  return body.innerHTML
}
