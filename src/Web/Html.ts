import { HttpServerResponse } from "@effect/platform"

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

const style = `
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; padding: 1rem; line-height: 1.5; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; border: 1px solid #8885; border-radius: 0.75rem; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.6rem;
    font-size: 1rem; margin-top: 0.25rem; border: 1px solid #888; border-radius: 0.4rem; }
  .actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1.5rem; }
  button { font-size: 1rem; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #888; cursor: pointer; }
  button.primary { background: #1a56db; border-color: #1a56db; color: #fff; }
  .error { padding: 0.75rem; border-radius: 0.4rem; background: #fde8e8; color: #9b1c1c; }
  .muted { opacity: 0.8; font-size: 0.9rem; }
  .link { background: none; border: none; padding: 0; color: inherit; text-decoration: underline; font-size: 0.9rem; }
`

/** A whole page: one small inline style, no scripts. */
export const page = (title: string, main: SafeHtml): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(style)}</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`.value

/**
 * Headers for every page: not framable, no scripts, forms only to this site (plus `formActions`, the places a form's
 * redirect may lead), never cached or leaked through a referrer.
 */
export const pageHeaders = (formActions: ReadonlyArray<string> = []): Record<string, string> => ({
  "content-security-policy": [
    "frame-ancestors 'none'",
    "default-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    ["form-action 'self'", ...formActions.filter((source) => source !== "")].join(" ")
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
})

/** An HTML page response. */
export const htmlResponse = (
  body: string,
  options?: {
    readonly status?: number
    readonly formActions?: ReadonlyArray<string>
    readonly headers?: Record<string, string>
  }
) =>
  HttpServerResponse.text(body, {
    status: options?.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...pageHeaders(options?.formActions), ...options?.headers }
  })

/** A simple page with a heading and a message, for errors that cannot be sent back to the client. */
export const messagePage = (title: string, message: string, status: number) =>
  htmlResponse(page(title, html`<h1>${title}</h1><p role="alert">${message}</p>`), { status })
