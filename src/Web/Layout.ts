import { HttpServerResponse } from "@effect/platform"
import type { Credential } from "../Domain/Credential.js"
import type { UserId } from "../Domain/Ids.js"
import type { PageMeta } from "../Domain/Pagination.js"
import { signOutForm } from "../SignIn/Page.js"
import { brand, head, html, htmlResponse, type SafeHtml, userText } from "../Ui/Html.js"

/** The signed-in user a page is for; pages show only this user's own account, even to admins. */
export interface Viewer {
  readonly userId: UserId
  readonly email: string
  readonly credential: Credential
  /** The session's CSRF token, for every form the page has. */
  readonly csrf: string
}

/** The sections of the navigation; a page names the one it belongs to. */
export type Section = "sites" | "activity" | "connection"

const navLinks: ReadonlyArray<readonly [Section, string, string]> = [
  ["sites", "/sites", "Websites"],
  ["activity", "/activity", "Activity"],
  ["connection", "/connection", "Site connection"]
]

/** The whole document of a signed-in page: header with the account and the navigation, then `main`. */
export const layout = (options: {
  readonly title: string
  readonly viewer: Viewer
  readonly section?: Section
  readonly scripts?: ReadonlyArray<string>
  readonly main: SafeHtml
}): string =>
  html`<!doctype html>
<html lang="en">
${head(options.title, options.scripts)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<div class="bar">
${brand("/sites")}
<nav aria-label="Main">
<ul>
${navLinks.map(
  ([section, href, label]) =>
    html`<li><a href="${href}"${section === options.section ? html` aria-current="page"` : null}>${label}</a></li>`
)}
</ul>
</nav>
<div class="account">
<span>Signed in as <strong>${userText(options.viewer.email)}</strong></span>
${signOutForm({ csrf: options.viewer.csrf, returnTo: undefined, label: "Sign out" })}
</div>
</div>
</header>
<main id="main">
${options.main}
</main>
</body>
</html>
`.value

/** Sends a page with the security headers (strict CSP, not framable, never cached). */
export const sendPage = (body: string, status = 200) => htmlResponse(body, { status })

/**
 * A part of a page that a page's script asked for (`x-page-part`), to put in place: HTML with the page's headers,
 * marked with the part's name so the script knows it got the part and not a whole page.
 */
export const pagePart = (name: string, part: SafeHtml) =>
  htmlResponse(part.value, { headers: { "x-page-part": name, vary: "x-page-part" } })

/** 303: after a form POST the browser follows with a GET; also used to send a visitor to sign in. */
export const seeOther = (location: string) =>
  HttpServerResponse.redirect(location, { status: 303, headers: { "cache-control": "no-store" } })

export const errorPage = (viewer: Viewer, status: number, title: string, message: SafeHtml | string) =>
  sendPage(layout({ title, viewer, main: html`<h1>${title}</h1><p role="alert">${message}</p>` }), status)

/** 404: what does not exist and what belongs to another account look exactly the same. */
export const notFoundPage = (viewer: Viewer, what = "page") =>
  errorPage(
    viewer,
    404,
    "Not found",
    html`There is no such ${what} on your account. <a href="/sites">Back to your websites</a>.`
  )

/** 422: a form field or an address that holds a NUL (U+0000), which no text the service keeps may hold. */
export const nulPage = (viewer: Viewer, what: string) =>
  errorPage(
    viewer,
    422,
    "Not accepted",
    `The ${what} contains a NUL character (U+0000), which no text here may hold, so nothing was changed. Go back and correct it.`
  )

/** 403: a form without the session's CSRF token; nothing was changed. */
export const forbiddenPage = (viewer: Viewer) =>
  errorPage(
    viewer,
    403,
    "Form expired",
    "The form has expired or did not come from this site, so nothing was changed. Go back, reload the page and try again."
  )

/** Previous/next links for a paged list; `hrefFor` builds the address of a page. */
export const pager = (label: string, meta: PageMeta, hrefFor: (page: number) => string) =>
  meta.last_page <= 1 && meta.page <= 1
    ? null
    : html`<nav class="pages" aria-label="${label}">
${meta.page > 1 ? html`<a href="${hrefFor(Math.min(meta.page - 1, meta.last_page))}" rel="prev">Previous page</a>` : null}
<span>Page ${meta.page} of ${meta.last_page}</span>
${meta.page < meta.last_page ? html`<a href="${hrefFor(meta.page + 1)}" rel="next">Next page</a>` : null}
</nav>`

/** An empty cell: a dash on screen, "none" to a screen reader. */
export const none = html`<span aria-hidden="true">–</span><span class="visually-hidden">none</span>`

/**
 * A timestamp `2026-11-03T09:30:00Z` as `2026-11-03 09:30 UTC`, in a `<time>` element (in a table on a phone, the
 * day only); a dash when absent.
 */
export const timestamp = (value: string | null) => {
  if (value === null) return none
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value)
  return match === null
    ? html`<time datetime="${value}">${value}</time>`
    : html`<time datetime="${value}">${match[1]}<span class="time-of-day"> ${match[2]} UTC</span></time>`
}

/** A link to an outside address, only for http(s) ones (anything else is shown as text). */
export const externalLink = (url: string | null, text?: string | null) =>
  url === null
    ? none
    : /^https?:\/\//i.test(url)
      ? html`<a href="${url}" rel="noopener noreferrer">${userText(text ?? url)}</a>`
      : userText(text ?? url)

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the screen. The box is a named region
 * that takes focus, so a keyboard can scroll it too.
 */
export const tableWrap = (label: string, table: SafeHtml) =>
  html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">${table}</div>`

/**
 * A column of a `stackedTable`: its heading, `num` for numbers (right-aligned on wide screens), and `plain` for values
 * that say what they are (a status badge): a compact row on a phone shows them without their heading, which screen
 * readers still read.
 */
export interface Column {
  readonly label: string
  readonly num?: boolean
  readonly plain?: boolean
}

/**
 * A table that on a phone shows each row as a small card of labelled values (the labels come from `data-label`, the
 * column headings stay for screen readers), and on wider screens as a table. Each row is the header cell's content,
 * then one cell per further column. A `compact` table (a long list) shows a row on a phone as its first cell, then
 * its other values side by side, each after its label in small type, so that a page of 20 rows stays short.
 */
export const stackedTable = (options: {
  readonly caption: string
  readonly columns: ReadonlyArray<Column>
  readonly rows: ReadonlyArray<readonly [SafeHtml | string, ...ReadonlyArray<SafeHtml | string | number>]>
  readonly compact?: boolean
}) =>
  tableWrap(
    options.caption,
    html`<table class="${options.compact === true ? "stack compact" : "stack"}">
<caption class="visually-hidden">${options.caption}</caption>
<thead><tr>${options.columns.map((c) => html`<th scope="col"${c.num === true ? html` class="num"` : null}>${c.label}</th>`)}</tr></thead>
<tbody>${options.rows.map(
      ([first, ...rest]) =>
        html`<tr><th scope="row">${first}</th>${rest.map((cell, i) => {
          const column = options.columns[i + 1]
          const classes = [column?.num === true ? "num" : "", column?.plain === true ? "plain" : ""].filter(
            (c) => c !== ""
          )
          return html`<td data-label="${column?.label ?? ""}"${classes.length === 0 ? null : html` class="${classes.join(" ")}"`}>${cell}</td>`
        })}</tr>`
    )}</tbody></table>`
  )
