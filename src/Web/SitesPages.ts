import type { ArticleStatus, ListedArticle } from "../Domain/Article.js"
import type { Backlink, BacklinkCategory, BacklinkStatus } from "../Domain/Backlink.js"
import type { PageMeta } from "../Domain/Pagination.js"
import { MAX_SEARCH_CHARACTERS } from "../Domain/Search.js"
import type { Site } from "../Domain/Site.js"
import type { MonthStats, Stats } from "../Domain/Stats.js"
import { countsList, monthCharts } from "../Ui/Charts.js"
import { html, userText, userTextOr, visibleControls } from "../Ui/Html.js"
import { BACKLINK_STATUSES, healthBadge, healthNotes, lastChecked, statusNames } from "./BacklinkHealth.js"
import { externalLink, layout, none, pager, stackedTable, tableWrap, timestamp, type Viewer } from "./Layout.js"
import { type PeriodView, periodHeading, periodParams, periodPicker } from "./PeriodPicker.js"

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
<p class="lead">The articles published and the backlinks acquired on each of your websites this month. Open a website
for any other period, its last twelve months, its articles and its backlinks.</p>
${
  sites.meta.total === 0
    ? html`<p>There are no websites on your account yet.</p>`
    : tableWrap(
        "Your websites",
        html`<table>
<caption class="visually-hidden">Your websites, with articles published and backlinks acquired this month</caption>
<thead><tr><th scope="col">Website</th>
<th scope="col" class="num">Articles this month</th><th scope="col" class="num">Backlinks this month</th></tr></thead>
<tbody>
${sites.data.map(
  ({ site, stats }) => html`<tr><th scope="row"><a href="/sites/${site.id}">${userText(siteName(site))}</a>
<span class="address">${externalLink(site.website_url)}</span></th>
<td class="num">${stats.articles_published}</td><td class="num">${stats.backlinks_acquired}</td></tr>`
)}
</tbody></table>`
      )
}
${pager("Pages of websites", sites.meta, (page) => `/sites?page=${page}`)}`
  })

/** Where the website page is: the period of its counts, the status filter, the search and the page of each list. */
export interface SiteView {
  readonly period: PeriodView
  readonly status: ArticleStatus | undefined
  /** The articles' search, as the list accepted it (none when the box was empty or the search was refused). */
  readonly q: string | undefined
  readonly page: number
  /** The backlinks' status filter (`backlink_status`): only live, lost or pending ones. */
  readonly backlink_status: BacklinkStatus | undefined
  readonly industry_page: number
  readonly local_page: number
}

/** The website page's address with `view`; defaults are left out. */
export const siteHref = (siteId: number, view: SiteView, fragment = "") => {
  const params = periodParams(view.period)
  if (view.status !== undefined) params.set("status", view.status)
  if (view.q !== undefined) params.set("q", view.q)
  if (view.page !== 1) params.set("page", String(view.page))
  if (view.backlink_status !== undefined) params.set("backlink_status", view.backlink_status)
  if (view.industry_page !== 1) params.set("industry_page", String(view.industry_page))
  if (view.local_page !== 1) params.set("local_page", String(view.local_page))
  const query = params.toString()
  return `/sites/${siteId}${query === "" ? "" : `?${query}`}${fragment}`
}

/** Hidden fields that carry `params` through a GET form. */
const hiddenFields = (params: URLSearchParams) =>
  [...params].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)

/** The status filter; it keeps the period and the search, and starts the list again from its first page. */
const statusFilter = (site: Site, view: SiteView) => {
  const keep = periodParams(view.period)
  if (view.q !== undefined) keep.set("q", view.q)
  if (view.backlink_status !== undefined) keep.set("backlink_status", view.backlink_status)
  return html`<form method="get" action="/sites/${site.id}#articles" class="inline">
${hiddenFields(keep)}
<div><label for="status">Status</label>
<select id="status" name="status">
<option value=""${view.status === undefined ? html` selected` : null}>All statuses</option>
${ARTICLE_STATUSES.map(
  (status) => html`<option value="${status}"${view.status === status ? html` selected` : null}>${status}</option>`
)}
</select></div>
<button type="submit">Show</button>
</form>`
}

/** What the search box shows: the text as typed, and why the list refused it (the page is then a 422). */
export interface SearchBox {
  readonly typed: string
  readonly error: string | undefined
}

/**
 * The articles' search: a GET form that keeps the period and the status filter and starts the list again from its
 * first page. The typed text is written back as it came, its control characters made visible (an attribute cannot
 * isolate them). A refused search is said under the box, which names it; an accepted one says how many articles
 * it found and offers to clear it.
 */
const searchForm = (site: Site, view: SiteView, box: SearchBox, found: number) => {
  const keep = periodParams(view.period)
  if (view.status !== undefined) keep.set("status", view.status)
  if (view.backlink_status !== undefined) keep.set("backlink_status", view.backlink_status)
  const invalid = box.error === undefined ? null : html` aria-invalid="true" aria-describedby="article-search-error"`
  return html`<form method="get" action="/sites/${site.id}#articles" role="search" aria-label="Articles" class="inline search">
${hiddenFields(keep)}
<div><label for="article-search">Search the articles <span class="hint">(title, keyword or text)</span></label>
<input type="search" id="article-search" name="q" maxlength="${MAX_SEARCH_CHARACTERS}" autocomplete="off"
  value="${visibleControls(box.typed)}"${invalid}></div>
<button type="submit">Search</button>
</form>
${
  box.error === undefined
    ? null
    : html`<p class="error" id="article-search-error" role="alert">That search cannot be run: ${box.error} All articles are listed instead.</p>`
}
${
  view.q === undefined
    ? null
    : html`<p class="search-result" role="status">${found} ${found === 1 ? "article" : "articles"} found for “${userText(view.q)}”, most relevant first.
<a href="${siteHref(site.id, { ...view, q: undefined, page: 1 }, "#articles")}">Clear search</a></p>`
}`
}

const badge = (value: string | null) => (value === null ? none : html`<span class="badge ${value}">${value}</span>`)

/** A searched article's excerpt around the hit, under its title. */
const matchOf = (article: ListedArticle) =>
  article.match === undefined ? null : html`<span class="match">${userText(article.match)}</span>`

const articlesTable = (articles: Listed<ListedArticle>, searched: boolean) =>
  articles.data.length === 0
    ? html`<p>No articles${articles.meta.total === 0 ? null : html` on this page`}.</p>`
    : stackedTable({
        caption: searched ? "Articles found, most relevant first" : "Articles, newest first",
        columns: [
          { label: "Title" },
          { label: "Status", plain: true },
          { label: "Published" },
          { label: "Words", num: true }
        ],
        compact: true,
        rows: articles.data.map((article) => [
          html`<a href="/articles/${article.id}">${userTextOr(article.title, `Article ${article.id}`)}</a>${matchOf(article)}`,
          badge(article.status),
          timestamp(article.published_at),
          article.word_count ?? none
        ])
      })

/** A backlink's name in the lists: its source's domain (or address), linking to its page with its checks. */
const backlinkName = (link: Backlink) =>
  html`<a href="/backlinks/${link.id}">${userTextOr(link.source_domain ?? link.source_url, `Backlink ${link.id}`)}</a>`

const backlinksTable = (caption: string, backlinks: Listed<Backlink>) =>
  backlinks.data.length === 0
    ? html`<p>No backlinks${backlinks.meta.total === 0 ? null : html` on this page`}.</p>`
    : stackedTable({
        caption,
        columns: [
          { label: "Source" },
          { label: "Status", plain: true },
          { label: "Health" },
          { label: "Anchor text" },
          { label: "Anchor type" },
          { label: "Last checked" },
          { label: "Acquired" }
        ],
        compact: true,
        rows: backlinks.data.map((link) => [
          backlinkName(link),
          healthBadge(link.status),
          healthNotes(link),
          userTextOr(link.anchor_text, none),
          link.anchor_type?.replace("_", " ") ?? none,
          lastChecked(link.last_checked_at),
          timestamp(link.acquired_at)
        ])
      })

const categoryTitle: Record<BacklinkCategory, string> = { industry: "Industry backlinks", local: "Local backlinks" }

/**
 * The backlinks' status filter as links (all, live, lost, pending), the current one marked; each keeps the period,
 * the articles' filter, search and page, and starts the backlinks again from their first pages.
 */
const backlinkFilter = (siteId: number, view: SiteView) => {
  const hrefFor = (backlink_status: BacklinkStatus | undefined) =>
    siteHref(siteId, { ...view, backlink_status, industry_page: 1, local_page: 1 }, "#backlinks")
  const item = (status: BacklinkStatus | undefined, label: string) =>
    view.backlink_status === status
      ? html`<strong aria-current="true">${label}</strong>`
      : html`<a href="${hrefFor(status)}">${label}</a>`
  return html`<nav class="filters" aria-label="Show backlinks">
${item(undefined, "All")}
${BACKLINK_STATUSES.map((status) => item(status, statusNames[status]))}
</nav>`
}

/** The backlinks' heading and the line that says how many stand now. */
const backlinksIntro = (stats: Stats, view: SiteView) => html`<h2 id="backlinks">Backlinks${
  view.backlink_status === undefined ? null : html`: ${statusNames[view.backlink_status].toLowerCase()} only`
}</h2>
<p>As the link checks last saw them, <strong>${stats.backlinks_live}</strong> live and
<strong>${stats.backlinks_lost}</strong> lost, of all this website's backlinks. Each backlink's page shows its last
checks; <a href="/link-checker">how the links are checked</a>.</p>`

/**
 * `GET /sites/:id`: the counts of the chosen period (with the picker), the last twelve months as charts, the
 * articles (searched, filtered, paged), the backlinks by category (filtered by status, paged). `periodError` says why a chosen period was refused
 * (the counts are then this month's).
 */
export const sitePage = (options: {
  readonly viewer: Viewer
  readonly site: Site
  readonly view: SiteView
  readonly stats: Stats
  readonly periodError: string | undefined
  readonly months: ReadonlyArray<MonthStats>
  readonly articles: Listed<ListedArticle>
  readonly search: SearchBox
  readonly backlinks: Record<BacklinkCategory, Listed<Backlink>>
}) => {
  const { site, view } = options
  const backlinks = (category: BacklinkCategory) => {
    const key = category === "industry" ? "industry_page" : "local_page"
    const which =
      view.backlink_status === undefined
        ? categoryTitle[category]
        : `${categoryTitle[category]}, ${view.backlink_status} only`
    return html`<section aria-labelledby="${category}-backlinks">
<h3 id="${category}-backlinks">${which} (${options.backlinks[category].meta.total})</h3>
${backlinksTable(`${which}, newest first`, options.backlinks[category])}
${pager(`Pages of ${category} backlinks`, options.backlinks[category].meta, (page) =>
  siteHref(site.id, { ...view, [key]: page }, `#${category}-backlinks`)
)}
</section>`
  }

  return layout({
    title: siteName(site),
    viewer: options.viewer,
    section: "sites",
    main: html`<p class="breadcrumb"><a href="/sites">All websites</a></p>
<h1>${userText(siteName(site))}</h1>
<p class="lead">${externalLink(site.website_url)}</p>
<section aria-labelledby="summary">
<h2 id="summary">${periodHeading(view.period, options.stats)}</h2>
${periodPicker(site.id, view)}
${options.periodError === undefined ? null : html`<p class="error" role="alert">That period cannot be shown: ${options.periodError} These are this month's counts.</p>`}
${countsList(options.stats)}
</section>
<section aria-labelledby="months">
<h2 id="months">The last 12 months</h2>
${monthCharts(options.months, { health: true })}
</section>
<h2 id="articles">Articles (${options.articles.meta.total})</h2>
${searchForm(site, view, options.search, options.articles.meta.total)}
${statusFilter(site, view)}
${articlesTable(options.articles, view.q !== undefined)}
${pager("Pages of articles", options.articles.meta, (page) => siteHref(site.id, { ...view, page }, "#articles"))}
<section aria-labelledby="backlinks">
${backlinksIntro(options.stats, view)}
${backlinkFilter(site.id, view)}
${backlinks("industry")}
${backlinks("local")}
</section>`
  })
}
