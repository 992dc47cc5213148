import type { AccountActivityRow, ActivityRow } from "../Domain/Activity.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { html, type SafeHtml, userTextOr } from "../Ui/Html.js"
import { who } from "./ArticlePages.js"
import { type Column, layout, none, stackedTable, timestamp, type Viewer } from "./Layout.js"

/** The origins an activity log can be narrowed to. */
export const ACTIVITY_ORIGINS = ["API", "MCP", "editor", "rewrite"] as const

const originNames: Record<(typeof ACTIVITY_ORIGINS)[number], string> = {
  API: "API",
  MCP: "MCP (assistants)",
  editor: "Editor",
  rewrite: "Rewrite and import"
}

/** A revision number, linked to its page when the article is the account's own. */
const revisionLink = (articleId: number | null, revision: number) =>
  articleId === null ? html`${revision}` : html`<a href="/articles/${articleId}/revisions/${revision}">${revision}</a>`

/**
 * What a row did: a revision saved in the editor or by a rewrite (linked); or the call's tool or method and path,
 * with the revision it saved (linked), or marked as a preview or a replay, which saved nothing.
 */
const what = (row: ActivityRow, articleId: number | null) => {
  if (row.kind === "change") return html`Revision ${revisionLink(articleId, row.revision ?? 0)} saved`
  const call = callName(row)
  if (row.note === "dry_run") return html`${call} <span class="badge note">preview</span> nothing saved`
  if (row.note === "replay") {
    return html`${call} <span class="badge note">replay</span> the earlier answer sent again, nothing saved again`
  }
  if (row.error !== null || row.message !== null) return html`${call} ${why(row)}`
  return row.revision === null ? call : html`${call}: revision ${revisionLink(articleId, row.revision)} saved`
}

/** A call by its tool or method and path; the editor's own saves and previews by what the person did. */
const callName = (row: ActivityRow) => {
  if (row.origin !== "editor") return html`<code>${row.tool ?? `${row.method ?? ""} ${row.path ?? ""}`}</code>`
  if (row.path?.endsWith("/preview") === true) return html`Preview in the editor`
  return row.status !== null && row.status >= 400
    ? html`Save in the editor <span class="badge failed">refused</span>`
    : html`Save in the editor`
}

/** Why a call failed, as its answer said it: the `error` identifier and the message (one line, bounded, as text). */
const why = (row: ActivityRow) =>
  html`<span class="why">${row.error === null ? null : html`<code>${row.error}</code>`} ${userTextOr(row.message, "")}</span>`

const status = (row: ActivityRow) =>
  row.status === null ? none : html`<span class="badge ${row.status < 400 ? "ok" : "failed"}">${row.status}</span>`

const filters = (base: string, origin: string | undefined) => html`<nav class="filters" aria-label="Show activity from">
${origin === undefined ? html`<strong aria-current="true">All</strong>` : html`<a href="${base}">All</a>`}
${ACTIVITY_ORIGINS.map((o) =>
  o === origin
    ? html`<strong aria-current="true">${originNames[o]}</strong>`
    : html`<a href="${base}?origin=${o}">${originNames[o]}</a>`
)}
</nav>`

const pages = (base: string, origin: string | undefined, page: number, hasNext: boolean) => {
  const href = (n: number) => `${base}?page=${n}${origin === undefined ? "" : `&origin=${origin}`}`
  return html`<nav class="pages" aria-label="Activity pages">
${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Newer</a>` : null}
<span>Page ${page}</span>
${hasNext ? html`<a href="${href(page + 1)}" rel="next">Older</a>` : null}
</nav>`
}

const COLUMNS: ReadonlyArray<Column> = [
  { label: "Time" },
  { label: "Origin" },
  { label: "Who" },
  { label: "What" },
  { label: "Reason" },
  { label: "Status", num: true }
]
const ACCOUNT_COLUMNS: ReadonlyArray<Column> = [...COLUMNS.slice(0, 3), { label: "Article" }, ...COLUMNS.slice(3)]

/** A table row's cells, as `stackedTable` takes them. */
type Cells = Parameters<typeof stackedTable>[0]["rows"][number]

/** A row's cells under COLUMNS; on the account's page, its `article` cell after who (ACCOUNT_COLUMNS). */
const cells = (row: ActivityRow, articleId: number | null, article: ReadonlyArray<SafeHtml | string> = []): Cells => [
  timestamp(row.at),
  row.origin,
  who(row),
  ...article,
  what(row, articleId),
  userTextOr(row.reason, none),
  status(row)
]

/** A page of an activity log: the origin filters, its rows (or a line saying there are none), the page links. */
const activityList = <Row extends ActivityRow>(
  base: string,
  options: {
    readonly rows: ReadonlyArray<Row>
    readonly origin: string | undefined
    readonly page: number
    readonly hasNext: boolean
  },
  table: {
    readonly caption: string
    readonly columns: ReadonlyArray<Column>
    readonly cells: (row: Row) => Cells
  }
) => html`${filters(base, options.origin)}
${
  options.rows.length === 0
    ? html`<p>Nothing on this page.</p>`
    : stackedTable({ caption: table.caption, columns: table.columns, rows: options.rows.map(table.cells) })
}
${pages(base, options.origin, options.page, options.hasNext)}`

/** The article's story: its API and MCP calls and its changes in the editor or by a rewrite, newest first. */
export const activityPage = (options: {
  readonly viewer: Viewer
  readonly article: ArticleWithBody
  readonly rows: ReadonlyArray<ActivityRow>
  readonly origin: string | undefined
  readonly page: number
  readonly hasNext: boolean
}) => {
  const { article } = options
  const base = `/articles/${article.id}/activity`
  return layout({
    title: "Activity",
    viewer: options.viewer,
    section: "sites",
    main: html`<p class="breadcrumb"><a href="/articles/${article.id}">Back to the article</a></p>
<h1>Activity of ${userTextOr(article.title, `article ${article.id}`)}</h1>
<p class="lead">Every API and assistant (MCP) call that concerned this article, and every change made in the editor
or by a rewrite or import, newest first.</p>
${activityList(base, options, {
  caption: "Calls and changes, newest first",
  columns: COLUMNS,
  cells: (row) => cells(row, article.id)
})}`
  })
}

/** The article a row concerns: its title linked when it is the account's own, else its number as the call named it. */
const articleCell = (row: AccountActivityRow) =>
  row.article_title !== null || row.own_article
    ? html`<a href="/articles/${row.article_id ?? 0}">${userTextOr(row.article_title, `Article ${row.article_id ?? ""}`)}</a>`
    : row.article_id === null
      ? none
      : html`Article ${row.article_id}`

/** `GET /activity`: the whole account's calls and changes, newest first, filterable by origin. */
export const accountActivityPage = (options: {
  readonly viewer: Viewer
  readonly rows: ReadonlyArray<AccountActivityRow>
  readonly origin: string | undefined
  readonly page: number
  readonly hasNext: boolean
  readonly retentionDays: number
}) => {
  return layout({
    title: "Activity",
    viewer: options.viewer,
    section: "activity",
    main: html`<h1>Activity</h1>
<p class="lead">Every API and assistant (MCP) call made with your account, and every change to your articles made in
the editor or by a rewrite or import, newest first. Calls are kept for ${options.retentionDays} days.</p>
${activityList("/activity", options, {
  caption: "Calls and changes on your account, newest first",
  columns: ACCOUNT_COLUMNS,
  cells: (row) => cells(row, row.own_article ? row.article_id : null, [articleCell(row)])
})}`
  })
}
