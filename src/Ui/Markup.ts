/**
 * Safe markup by construction: a template tag that escapes every value it is given. Pure (no server module), so the
 * pages drawn on the server and the assistants' cards drawn in a browser (src/Ui/Cards/) write HTML the same way.
 */

/** Markup that is already safe: produced by `html`, never by concatenating input. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}

type Interpolation = string | number | SafeHtml | ReadonlyArray<SafeHtml> | null | undefined | false

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Escapes text for an HTML text node or a quoted attribute value. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c]!)

const render = (value: Interpolation): string => {
  if (value === null || value === undefined || value === false) return ""
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map((item: SafeHtml) => item.value).join("")
  return escapeHtml(String(value))
}

/** A template whose every interpolated value is escaped, unless it is itself `html`. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): SafeHtml =>
  new SafeHtml(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ""), ""))
