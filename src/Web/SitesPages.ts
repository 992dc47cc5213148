import type { Article, ArticleStatus } from "../Domain/Article.js"
import type { Backlink, BacklinkCategory } from "../Domain/Backlink.js"
import type { PageMeta } from "../Domain/Pagination.js"
import type { Site } from "../Domain/Site.js"
import type { Stats } from "../Domain/Stats.js"
import { html } from "../Http/Html.js"
import { externalLink, layout, none, pager, timestamp, type Viewer } from "./Layout.js"

/** A list page as the services return it. */
export interface Listed<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: PageMeta
}

export const ARTICLE_STATUSES: ReadonlyArray<ArticleStatus> = ["draft", "scheduled", "published"]

const siteName = (site: Site) => site.name ?? site.website_url ?? `Website ${site.id}`

/** `GET /sites`: the account's websites with this month's counts. */
export const sitesPage = (viewer: Viewer, sites: Listed<{ readonly site: Site; readonly stats: Stats }>) =>
  layout({
    title: "Websites",
    viewer,
    section: "sites",
    main: html`<h1>Websites</h1>
${
  sites.meta.total === 0
    ? html`<p>There are no websites on your account yet.</p>`
    : html`<div class="table-wrap"><table>
<caption class="visually-hidden">Your websites, with articles published and backlinks acquired this month</caption>
<thead><tr><th scope="col">Website</th><th scope="col">Address</th>
<th scope="col" class="num">Articles this month</th><th scope="col" class="num">Backlinks this month</th></tr></thead>
<tbody>
${sites.data.map(
  ({ site, stats }) => html`<tr><th scope="row"><a href="/sites/${site.id}">${siteName(site)}</a></th>
<td class="url">${externalLink(site.website_url)}</td>
<td class="num">${stats.articles_published}</td><td class="num">${stats.backlinks_acquired}</td></tr>`
)}
</tbody></table></div>`
}
${pager("Pages of websites", sites.meta, (page) => `/sites?page=${page}`)}`
  })

/** Where the website page is: the status filter and the page of each list. */
export interface SiteView {
  readonly status: ArticleStatus | undefined
  readonly page: number
  readonly industry_page: number
  readonly local_page: number
}

/** The website page's address with `view`; defaults are left out. */
export const siteHref = (siteId: number, view: SiteView, fragment = "") => {
  const params = new URLSearchParams()
  if (view.status !== undefined) params.set("status", view.status)
  if (view.page !== 1) params.set("page", String(view.page))
  if (view.industry_page !== 1) params.set("industry_page", String(view.industry_page))
  if (view.local_page !== 1) params.set("local_page", String(view.local_page))
  const query = params.toString()
  return `/sites/${siteId}${query === "" ? "" : `?${query}`}${fragment}`
}

const statsList = (stats: Stats) => html`<dl class="stats">
<div><dt>Articles published</dt><dd>${stats.articles_published}</dd></div>
<div><dt>Backlinks acquired</dt><dd>${stats.backlinks_acquired}</dd></div>
<div><dt>Industry backlinks</dt><dd>${stats.backlinks_industry}</dd></div>
<div><dt>Local backlinks</dt><dd>${stats.backlinks_local}</dd></div>
</dl>`

const statusFilter = (
  site: Site,
  view: SiteView
) => html`<form method="get" action="/sites/${site.id}#articles" class="inline">
<div><label for="status">Status</label>
<select id="status" name="status">
<option value=""${view.status === undefined ? html` selected` : null}>All statuses</option>
${ARTICLE_STATUSES.map(
  (status) => html`<option value="${status}"${view.status === status ? html` selected` : null}>${status}</option>`
)}
</select></div>
<button type="submit">Show</button>
</form>`

const articlesTable = (articles: Listed<Article>) =>
  articles.data.length === 0
    ? html`<p>No articles${articles.meta.total === 0 ? null : html` on this page`}.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Published</th>
<th scope="col" class="num">Words</th></tr></thead>
<tbody>
${articles.data.map(
  (
    article
  ) => html`<tr><th scope="row"><a href="/articles/${article.id}">${article.title ?? `Article ${article.id}`}</a></th>
<td>${article.status ?? none}</td><td>${timestamp(article.published_at)}</td>
<td class="num">${article.word_count ?? none}</td></tr>`
)}
</tbody></table></div>`

const backlinksTable = (backlinks: Listed<Backlink>) =>
  backlinks.data.length === 0
    ? html`<p>No backlinks${backlinks.meta.total === 0 ? null : html` on this page`}.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Source</th><th scope="col">Anchor text</th><th scope="col">Anchor type</th>
<th scope="col">Status</th><th scope="col">Acquired</th></tr></thead>
<tbody>
${backlinks.data.map(
  (link) => html`<tr><th scope="row">${externalLink(link.source_url, link.source_domain)}</th>
<td>${link.anchor_text ?? none}</td><td>${link.anchor_type?.replace("_", " ") ?? none}</td>
<td>${link.status ?? none}</td><td>${timestamp(link.acquired_at)}</td></tr>`
)}
</tbody></table></div>`

const categoryTitle: Record<BacklinkCategory, string> = { industry: "Industry backlinks", local: "Local backlinks" }

/** `GET /sites/:id`: this month's counts, the articles (filtered, paged), the backlinks by category (paged). */
export const sitePage = (options: {
  readonly viewer: Viewer
  readonly site: Site
  readonly view: SiteView
  readonly stats: Stats
  readonly articles: Listed<Article>
  readonly backlinks: Record<BacklinkCategory, Listed<Backlink>>
}) => {
  const { site, view } = options
  const backlinks = (category: BacklinkCategory) => {
    const key = category === "industry" ? "industry_page" : "local_page"
    return html`<section aria-labelledby="${category}-backlinks">
<h3 id="${category}-backlinks">${categoryTitle[category]} (${options.backlinks[category].meta.total})</h3>
${backlinksTable(options.backlinks[category])}
${pager(`Pages of ${category} backlinks`, options.backlinks[category].meta, (page) =>
  siteHref(site.id, { ...view, [key]: page }, `#${category}-backlinks`)
)}
</section>`
  }
  return layout({
    title: siteName(site),
    viewer: options.viewer,
    section: "sites",
    main: html`<p><a href="/sites">All websites</a></p>
<h1>${siteName(site)}</h1>
<p>${externalLink(site.website_url)}</p>
<h2>This month <span class="muted">(${options.stats.from} to ${options.stats.to})</span></h2>
${statsList(options.stats)}
<h2 id="articles">Articles (${options.articles.meta.total})</h2>
${statusFilter(site, view)}
${articlesTable(options.articles)}
${pager("Pages of articles", options.articles.meta, (page) => siteHref(site.id, { ...view, page }, "#articles"))}
<h2>Backlinks</h2>
${backlinks("industry")}
${backlinks("local")}`
  })
}
