/**
 * Safe markup by construction: a template tag that escapes every value it is given. Pure (no server module), so the
 * pages drawn on the server and the assistants' cards drawn in a browser (src/Ui/Cards/) write HTML the same way.
 */
import { visibleControls } from "../Domain/Controls.js"

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

/**
 * Text a person or a client supplied (a title, a reason, a key's or an assistant's name): escaped, each control
 * character (a line break, ESC, a bidirectional override) written as a visible marker such as `⟨U+202E⟩`, and
 * isolated in `<bdi>`, so that it cannot change how the text around it reads. New text cannot hold these characters
 * (they are refused as it is written); this shows what was stored before, as it is. Use it wherever such text is
 * shown; in an attribute or a `<title>`, where markup cannot go, use `visibleControls` alone.
 */
export const userText = (text: string): SafeHtml => html`<bdi>${visibleControls(text)}</bdi>`

/** `userText`, or `fallback` (the page's own words, written as they are) when there is no text. */
export const userTextOr = (text: string | null | undefined, fallback: SafeHtml | string): SafeHtml =>
  text === null || text === undefined ? html`${fallback}` : userText(text)

export { visibleControls } from "../Domain/Controls.js"
