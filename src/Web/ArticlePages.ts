import { Option } from "effect"
import type { SavingCall } from "../Domain/Activity.js"
import type { ArticleWithBody, ContentField, ProtectedLink } from "../Domain/Article.js"
import { foldDiff, lineDiff } from "../Domain/BodyDiff.js"
import type { RevisionRow, RevisionSummary } from "../Domain/Revision.js"
import { editorScriptSrc } from "../Ui/Assets.js"
import { bodyChangeView, fieldChangesList } from "../Ui/ChangeView.js"
import { type DiffViewLine, diffBlock } from "../Ui/DiffView.js"
import { html, type SafeHtml, userText, userTextOr, visibleControls } from "../Ui/Html.js"
import { type EditorNote, type EditorValues, editorForm, featuredImageForm } from "./ArticleEditor.js"
import { bodyFrame } from "./BodyFrame.js"
import { externalLink, layout, none, pager, stackedTable, timestamp, type Viewer } from "./Layout.js"
import type { Listed } from "./SitesPages.js"

const protectedList = (links: ReadonlyArray<ProtectedLink>) =>
  links.length === 0
    ? html`<p>This article has no protected links.</p>`
    : html`<ul class="protected">${links.map(
        (link) => html`<li><strong>${link.type}</strong>: “${link.text}” → <code>${link.href}</code></li>`
      )}</ul>`

/** Who made a change or a call: a user's e-mail, or an API key's name and prefix. */
export const who = (entry: {
  readonly user_email: string | null
  readonly key_name: string | null
  readonly key_prefix: string | null
}) =>
  entry.user_email !== null
    ? userText(entry.user_email)
    : entry.key_name !== null
      ? html`API key “${userText(entry.key_name)}” (${entry.key_prefix ?? ""}…)`
      : none

/** Revision 1 of an article that came in through an import or a rewrite is the text as it arrived. */
const isOriginal = (entry: { readonly number: number; readonly origin: string }) =>
  entry.number === 1 && entry.origin === "rewrite"

/** The content fields as the history names them. */
const fieldNames: Record<ContentField, string> = {
  title: "title",
  body: "body",
  meta_description: "meta description",
  featured_image_url: "featured image"
}

const historyTable = (articleId: number, history: Listed<RevisionSummary>) =>
  history.data.length === 0
    ? html`<p>${history.meta.total === 0 ? "No changes have been made through the service yet." : "No revisions on this page."}</p>`
    : stackedTable({
        caption: "Revisions, newest first",
        columns: [
          { label: "Revision" },
          { label: "Time" },
          { label: "Origin" },
          { label: "Who" },
          { label: "Changed" },
          { label: "Reason" }
        ],
        rows: history.data.map(
          (revision) =>
            [
              html`<span class="on-phone">Revision </span><a href="/articles/${articleId}/revisions/${revision.number}">${revision.number}</a>${
                isOriginal(revision) ? html` <span class="badge">original</span>` : null
              }`,
              timestamp(revision.created_at),
              revision.origin,
              userTextOr(revision.actor, none),
              revision.changed.length === 0 ? none : revision.changed.map((field) => fieldNames[field]).join(", "),
              userTextOr(revision.reason, none)
            ] as const
        )
      })

/** `GET /articles/:id`: the article, its body, its protected links, the editor and the revision history. */
export const articlePage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly editor: EditorValues
  /** A page of the article's revisions, as the API lists them. */
  readonly history: Listed<RevisionSummary>
  readonly notice?: string | undefined
  readonly error?: SafeHtml | undefined
  /** A refused save, or what was just done to the editor's text, said next to its Save button. */
  readonly editorNote?: EditorNote | undefined
  /** "Preview changes": what saving the editor's values would do. */
  readonly preview?: SafeHtml | undefined
}) => {
  const { article, editor, viewer } = options
  const title = article.title ?? `Article ${article.id}`
  return layout({
    title,
    viewer,
    section: "sites",
    scripts: [editorScriptSrc],
    main: html`<p class="breadcrumb"><a href="/sites/${article.site_id}">Back to the website</a></p>
<h1>${userTextOr(article.title, title)}</h1>
${options.notice === undefined ? null : html`<p class="notice" role="status">${options.notice}</p>`}
${options.error === undefined ? null : html`<div class="error" role="alert"><p>Nothing was saved.</p>${options.error}</div>`}
<dl class="meta">
<dt>URL</dt><dd>${externalLink(article.url)}</dd>
<dt>Status</dt><dd>${article.status ?? none}</dd>
<dt>Target keyword</dt><dd>${userTextOr(article.target_keyword, none)}</dd>
<dt>Word count</dt><dd>${article.word_count ?? none}</dd>
<dt>Featured image</dt><dd>${article.featured_image_url === null ? none : html`<img src="${article.featured_image_url}" alt="Featured image" class="featured">`}</dd>
</dl>
<h2>Body</h2>
${bodyFrame(`Body of ${visibleControls(title)}`, article.body)}
<h2>Protected links</h2>
${protectedList(article.protected_links)}
<h2>Edit</h2>
<p class="muted">Saved with the same checks as the API; each save is one revision. Protected links are locked in
the editor: they can move with the text around them, but not be changed or deleted.</p>
${editorForm(viewer, article, editor, options.editorNote)}
<section id="preview" aria-label="Preview">${options.preview ?? null}</section>
<h2>Featured image</h2>
${featuredImageForm(viewer, article)}
<h2 id="history">Revision history (${options.history.meta.total})</h2>
<p class="muted">Every change is kept, from the text as it was imported. Open a revision to compare it with the
current text or to restore it.</p>
${historyTable(article.id, options.history)}
${pager("Pages of revisions", options.history.meta, (page) => `/articles/${article.id}?history_page=${page}#history`)}
<p><a href="/articles/${article.id}/activity">Activity log</a>: every API and assistant call and every change of this
article.</p>`
  })
}

/**
 * The diff from a revision's body to the current one: the text word by word, then behind "Show HTML" a count of
 * changed lines of source and those lines in context.
 */
const diffView = (before: string, after: string) => {
  const lines = lineDiff(before, after)
  const removed = lines.filter((line) => line.kind === "removed").length
  const added = lines.filter((line) => line.kind === "added").length
  if (removed === 0 && added === 0) return html`<p>The body of this revision is the same as the current one.</p>`
  return bodyChangeView(
    before,
    after,
    html`<p class="diff-summary"><span class="removed">${removed} ${removed === 1 ? "line" : "lines"} removed</span>,
<span class="added">${added} ${added === 1 ? "line" : "lines"} added</span> (a line that changed counts as both).</p>
${diffBlock(
  foldDiff(lines).map(
    (line): DiffViewLine =>
      line.kind === "gap"
        ? { kind: "gap", text: `… ${line.lines} unchanged ${line.lines === 1 ? "line" : "lines"} …` }
        : { kind: line.kind, text: `${line.kind === "same" ? " " : line.kind === "removed" ? "-" : "+"} ${line.text}` }
  )
)}`
  )
}

const revisionFacts = (
  revision: RevisionRow,
  savedBy: Option.Option<SavingCall>,
  articleId: number
) => html`<dl class="meta">
<dt>Time</dt><dd>${timestamp(revision.created_at)}</dd>
<dt>Origin</dt><dd>${revision.origin}${isOriginal(revision) ? html` <span class="badge">original</span>` : null}</dd>
${Option.match(savedBy, {
  onNone: () => null,
  onSome: (call) => html`<dt>Saved by</dt><dd><code>${call.tool ?? `${call.method ?? ""} ${call.path ?? ""}`}</code>
at ${timestamp(call.at)}${call.request_id === null ? null : html`, request <code>${call.request_id}</code>`}
(<a href="/articles/${articleId}/activity">activity</a>)</dd>`
})}
<dt>Reason</dt><dd>${userTextOr(revision.reason, none)}</dd>
<dt>Title</dt><dd>${userTextOr(revision.title, none)}</dd>
<dt>Meta description</dt><dd>${userTextOr(revision.meta_description, none)}</dd>
</dl>`

/** How the revision's title and meta description differ from the current ones, each shown only when it does. */
const fieldChanges = (revision: RevisionRow, current: RevisionRow | undefined) => {
  if (current === undefined || current.number === revision.number) return null
  const fields = [
    { label: "Title", before: revision.title, after: current.title },
    { label: "Meta description", before: revision.meta_description, after: current.meta_description }
  ].filter((field) => field.before !== field.after)
  return html`<h2>Title and meta description from this revision to the current ones</h2>
${fields.length === 0 ? html`<p>The same in both.</p>` : fieldChangesList(fields)}`
}

/**
 * `GET /articles/:id/revisions/:n`: one revision, the call that saved it (an API or MCP change), how its title, meta
 * description and body differ from the current ones, and a way to restore it.
 */
export const revisionPage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly revision: RevisionRow
  readonly current?: RevisionRow | undefined
  readonly savedBy?: Option.Option<SavingCall>
  readonly error?: SafeHtml | undefined
}) => {
  const { article, revision, viewer } = options
  return layout({
    title: `Revision ${revision.number}`,
    viewer,
    section: "sites",
    main: html`<p class="breadcrumb"><a href="/articles/${article.id}">Back to the article</a></p>
<h1>Revision ${revision.number} of ${userTextOr(article.title, `article ${article.id}`)}</h1>
${options.error === undefined ? null : html`<div class="error" role="alert"><p>Nothing was restored.</p>${options.error}</div>`}
${revisionFacts(revision, options.savedBy ?? Option.none(), article.id)}
<div class="actions"><a class="button primary" href="/articles/${article.id}/revisions/${revision.number}/restore">Restore this revision</a></div>
${fieldChanges(revision, options.current)}
<h2>Changes from this revision to the current body</h2>
${diffView(revision.body, article.body)}
<h2>Rendered</h2>
${bodyFrame(`Body of revision ${revision.number}`, revision.body)}
<h2>HTML source</h2>
<pre class="wrap">${revision.body}</pre>`
  })
}

/**
 * `GET /articles/:id/revisions/:n/restore`: what restoring will do, and the button that does it (a POST with the
 * session's CSRF token); nothing changes until it is pressed.
 */
export const restoreConfirmPage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly revision: RevisionRow
}) => {
  const { article, revision, viewer } = options
  const lines = lineDiff(article.body, revision.body)
  const removed = lines.filter((line) => line.kind === "removed").length
  const added = lines.filter((line) => line.kind === "added").length
  return layout({
    title: `Restore revision ${revision.number}?`,
    viewer,
    section: "sites",
    main: html`<div class="confirm">
<p class="breadcrumb"><a href="/articles/${article.id}/revisions/${revision.number}">Back to revision ${revision.number}</a></p>
<h1>Restore revision ${revision.number}?</h1>
<p>The article “${userTextOr(article.title, `article ${article.id}`)}” will get the title, body, meta description and
featured image of revision ${revision.number}, saved as a new revision. Nothing is lost: the current text stays in
the history and can be restored in turn.</p>
<p class="diff-summary">The body changes by <span class="removed">${removed} ${removed === 1 ? "line" : "lines"} removed</span>
and <span class="added">${added} ${added === 1 ? "line" : "lines"} added</span>. Protected links are checked as for
any edit.</p>
${revisionFacts(revision, Option.none(), article.id)}
<form method="post" action="/articles/${article.id}/revisions/${revision.number}/restore">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<div class="actions"><button class="primary" type="submit">Restore revision ${revision.number}</button>
<a href="/articles/${article.id}/revisions/${revision.number}">Cancel</a></div>
</form>
</div>`
  })
}
