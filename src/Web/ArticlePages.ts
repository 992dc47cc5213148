import type { RevisionRow } from "../Articles/RevisionsRepo.js"
import type { ActivityRow } from "../Audit/Repo.js"
import type { ArticleWithBody, ProtectedLink } from "../Domain/Article.js"
import { html, type SafeHtml } from "../Http/Html.js"
import { lineDiff } from "./ArticleDiff.js"
import type { RevisionEntry } from "./ArticleRepo.js"
import { externalLink, layout, none, timestamp, type Viewer } from "./Layout.js"

/** The stylesheet of the sandboxed body frame: protected links stand out. */
export const frameStylesheetHref = "/assets/frame.css"

/** What the editor shows: the saved values, or the ones just submitted when they were refused. */
export interface EditorValues {
  readonly title: string
  readonly meta_description: string
  readonly body: string
  readonly reason: string
}

/**
 * A body in a sandboxed frame (no scripts, opaque origin). The body is the sanitised, canonical HTML; the frame's
 * only styling is a stylesheet from this site, never an inline style.
 */
export const bodyFrame = (title: string, body: string) =>
  html`<iframe class="body" sandbox title="${title}" srcdoc="${`<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${frameStylesheetHref}"></head><body>${body}</body></html>`}"></iframe>`

const protectedList = (links: ReadonlyArray<ProtectedLink>) =>
  links.length === 0
    ? html`<p>This article has no protected links.</p>`
    : html`<ul class="protected">${links.map(
        (link) => html`<li><strong>${link.type}</strong>: “${link.text}” → <code>${link.href}</code></li>`
      )}</ul>`

const who = (entry: {
  readonly user_email: string | null
  readonly key_name: string | null
  readonly key_prefix: string | null
}) =>
  entry.user_email !== null
    ? html`${entry.user_email}`
    : entry.key_name !== null
      ? html`API key “${entry.key_name}” (${entry.key_prefix ?? ""}…)`
      : none

const historyTable = (articleId: number, entries: ReadonlyArray<RevisionEntry>) =>
  entries.length === 0
    ? html`<p>No changes have been made through the service yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th class="num">Revision</th><th>Time</th><th>Origin</th><th>Who</th><th>Reason</th></tr></thead>
<tbody>${entries.map(
        (entry) =>
          html`<tr><td class="num"><a href="/articles/${articleId}/revisions/${entry.number}">${entry.number}</a></td><td>${timestamp(entry.created_at)}</td><td>${entry.origin}</td><td>${who(entry)}</td><td>${entry.reason ?? none}</td></tr>`
      )}</tbody></table></div>`

/** `GET /articles/:id`: the article, its body, its protected links, the editor and the revision history. */
export const articlePage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly editor: EditorValues
  readonly history: ReadonlyArray<RevisionEntry>
  readonly notice?: string | undefined
  readonly error?: SafeHtml | undefined
}) => {
  const { article, editor, viewer } = options
  const title = article.title ?? `Article ${article.id}`
  return layout({
    title,
    viewer,
    section: "sites",
    main: html`<p><a href="/sites/${article.site_id}">Back to the website</a></p>
<h1>${title}</h1>
${options.notice === undefined ? null : html`<p class="notice" role="status">${options.notice}</p>`}
${options.error === undefined ? null : html`<div class="error" role="alert"><p>Nothing was saved.</p>${options.error}</div>`}
<dl class="meta">
<dt>URL</dt><dd>${externalLink(article.url)}</dd>
<dt>Status</dt><dd>${article.status ?? none}</dd>
<dt>Target keyword</dt><dd>${article.target_keyword ?? none}</dd>
<dt>Word count</dt><dd>${article.word_count ?? none}</dd>
<dt>Featured image</dt><dd>${article.featured_image_url === null ? none : html`<img src="${article.featured_image_url}" alt="Featured image" class="featured">`}</dd>
</dl>
<h2>Body</h2>
${bodyFrame(`Body of ${title}`, article.body)}
<h2>Protected links</h2>
${protectedList(article.protected_links)}
<h2>Edit</h2>
<p class="muted">Saved with the same checks as the API; each save is one revision.</p>
<form method="post" action="/articles/${article.id}/edit">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="title">Title</label><input type="text" id="title" name="title" value="${editor.title}">
<label for="meta_description">Meta description</label><textarea id="meta_description" name="meta_description" rows="3">${editor.meta_description}</textarea>
<label for="body">HTML body</label><textarea id="body" name="body" rows="20">${editor.body}</textarea>
<label for="reason">Reason (optional)</label><input type="text" id="reason" name="reason" value="${editor.reason}">
<div class="actions"><button class="primary" type="submit">Save</button></div>
</form>
<h2>Revision history</h2>
${historyTable(article.id, options.history)}
<p><a href="/articles/${article.id}/activity">Activity log</a></p>`
  })
}

const diffView = (before: string, after: string) =>
  html`<pre class="diff">${lineDiff(before, after).map((line) =>
    line.kind === "same"
      ? html`  ${line.text}\n`
      : line.kind === "removed"
        ? html`<del>- ${line.text}</del>\n`
        : html`<ins>+ ${line.text}</ins>\n`
  )}</pre>`

/** `GET /articles/:id/revisions/:n`: one revision, its diff against the current body, and Restore. */
export const revisionPage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly revision: RevisionRow
  readonly error?: SafeHtml | undefined
}) => {
  const { article, revision, viewer } = options
  return layout({
    title: `Revision ${revision.number}`,
    viewer,
    section: "sites",
    main: html`<p><a href="/articles/${article.id}">Back to the article</a></p>
<h1>Revision ${revision.number} of ${article.title ?? `article ${article.id}`}</h1>
${options.error === undefined ? null : html`<div class="error" role="alert"><p>Nothing was restored.</p>${options.error}</div>`}
<dl class="meta">
<dt>Time</dt><dd>${timestamp(revision.created_at)}</dd>
<dt>Origin</dt><dd>${revision.origin}</dd>
<dt>Reason</dt><dd>${revision.reason ?? none}</dd>
<dt>Title</dt><dd>${revision.title ?? none}</dd>
<dt>Meta description</dt><dd>${revision.meta_description ?? none}</dd>
</dl>
<form method="post" action="/articles/${article.id}/revisions/${revision.number}/restore">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<div class="actions"><button class="primary" type="submit">Restore this revision</button></div>
</form>
<h2>Changes from this revision to the current body</h2>
${diffView(revision.body, article.body)}
<h2>Rendered</h2>
${bodyFrame(`Body of revision ${revision.number}`, revision.body)}
<h2>HTML source</h2>
<pre>${revision.body}</pre>`
  })
}

/** `GET /articles/:id/activity`: the API and MCP calls that concerned the article, newest first. */
/** The origins the activity log can be narrowed to. */
export const ACTIVITY_ORIGINS = ["API", "MCP", "editor", "rewrite"] as const

/** The article's story: its API and MCP calls and its changes in the editor or by a rewrite, newest first. */
export const activityPage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly rows: ReadonlyArray<ActivityRow>
  readonly origin: string | undefined
  readonly page: number
  readonly hasNext: boolean
}) => {
  const { article, page, origin } = options
  const base = `/articles/${article.id}/activity`
  const href = (n: number) => `${base}?page=${n}${origin === undefined ? "" : `&origin=${origin}`}`
  return layout({
    title: "Activity",
    viewer: options.viewer,
    section: "sites",
    main: html`<p><a href="/articles/${article.id}">Back to the article</a></p>
<h1>Activity of ${article.title ?? `article ${article.id}`}</h1>
<nav class="filters" aria-label="Show activity from">
${origin === undefined ? html`<strong>All</strong>` : html`<a href="${base}">All</a>`}
${ACTIVITY_ORIGINS.map((o) => (o === origin ? html` <strong>${o}</strong>` : html` <a href="${base}?origin=${o}">${o}</a>`))}
</nav>
${
  options.rows.length === 0
    ? html`<p>Nothing on this page.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>Time</th><th>Origin</th><th>Who</th><th>What</th><th>Reason</th><th class="num">Status</th></tr></thead>
<tbody>${options.rows.map(
        (row) =>
          html`<tr><td>${timestamp(row.at)}</td><td>${row.origin}</td><td>${who(row)}</td><td>${
            row.kind === "change"
              ? html`Revision <a href="/articles/${article.id}/revisions/${row.revision ?? 0}">${row.revision ?? ""}</a> saved`
              : html`<code>${row.tool ?? `${row.method ?? ""} ${row.path ?? ""}`}</code>`
          }</td><td>${row.reason ?? none}</td><td class="num">${row.status ?? none}</td></tr>`
      )}</tbody></table></div>`
}
<nav class="pages" aria-label="Activity pages">
${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Newer</a>` : null}
<span>Page ${page}</span>
${options.hasNext ? html`<a href="${href(page + 1)}" rel="next">Older</a>` : null}
</nav>`
  })
}
