import { HttpServerResponse } from "@effect/platform"
import { iconHref, stylesheetHref } from "./Assets.js"
import { logoSvg } from "./Icon.js"
import { html, SafeHtml, visibleControls } from "./Markup.js"

export { escapeHtml, html, SafeHtml, userText, userTextOr, visibleControls } from "./Markup.js"

/** The product's name, in every page's title and header. */
export const PRODUCT_NAME = "Content and Backlink Service"

/**
 * The `<head>` of every page: the title with the product's name (any control character in it, as in an article's
 * title stored before they were refused, written visibly), the icon, the one stylesheet, scripts from `/assets/`.
 */
export const head = (title: string, scripts: ReadonlyArray<string> = []) =>
  html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${visibleControls(title)} · ${PRODUCT_NAME}</title>
<link rel="icon" href="${iconHref}" type="image/svg+xml">
<link rel="stylesheet" href="${stylesheetHref}">
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
</head>`

/** The product's logo and name; a link home on the pages of a signed-in user. */
export const brand = (href?: string) => {
  const inner = html`${new SafeHtml(logoSvg)}<span>${PRODUCT_NAME}</span>`
  return href === undefined
    ? html`<span class="brand">${inner}</span>`
    : html`<a class="brand" href="${href}">${inner}</a>`
}

/**
 * A small page on its own (sign-in, consent): the product's name above a card, no navigation, no scripts. A `wide`
 * card holds a page of reading (the link checker's).
 */
export const page = (title: string, main: SafeHtml, options: { readonly wide?: boolean } = {}): string =>
  html`<!doctype html>
<html lang="en">
${head(title)}
<body>
<header class="site"><div class="bar">${brand()}</div></header>
<main class="${options.wide === true ? "card wide" : "card"}">
${main}
</main>
</body>
</html>
`.value

/**
 * Headers for every page: not framable, styles and scripts only from this site's files (nothing inline), forms only
 * to this site (plus `formActions`, the places a form's redirect may lead), never cached, no referrer to others.
 */
export const pageHeaders = (formActions: ReadonlyArray<string> = []): Record<string, string> => ({
  "content-security-policy": [
    "default-src 'self'",
    "img-src 'self' https: data:",
    "style-src 'self'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    ["form-action 'self'", ...formActions.filter((source) => source !== "")].join(" "),
    "base-uri 'none'"
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
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
