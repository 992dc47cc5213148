import type { ImportFileJson } from "../Import/ImportFile.js"

type SiteJson = ImportFileJson["accounts"][number]["sites"] extends ReadonlyArray<infer S> | undefined ? S : never
type ArticleJson = SiteJson["articles"] extends ReadonlyArray<infer A> | undefined ? A : never
type BacklinkJson = SiteJson["backlinks"] extends ReadonlyArray<infer B> | undefined ? B : never

/** One article of a demo website: the words that make it itself; the rest of its body comes from the site's voice. */
export interface ArticleSpec {
  readonly title: string
  readonly slug: string
  readonly keyword: string
  /** What the article is about, as a noun phrase for the shared paragraphs ("dripping taps"). */
  readonly topic: string
  /** The opening paragraph. */
  readonly intro: string
  /** Three short points, shown as a list. */
  readonly points: readonly [string, string, string]
}

export interface Link {
  readonly href: string
  readonly text: string
}

/** A demo website: its settings, articles, the paragraphs its articles share, and where its backlinks come from. */
export interface SiteSpec {
  readonly name: string
  readonly website_url: string
  readonly language: string
  readonly country: string
  readonly geographic_scope: "local" | "regional" | "national" | "international"
  readonly industry: string
  /** Path under the website where articles live, e.g. `/blog/`. */
  readonly articlePath: string
  readonly articles: ReadonlyArray<ArticleSpec>
  /** How many of the last articles are drafts (no date) and scheduled (a date in the coming days). */
  readonly drafts: number
  readonly scheduled: number
  readonly pointsHeading: (article: ArticleSpec) => string
  readonly adviceHeading: string
  /** Variants, picked by the article's index. */
  readonly context: ReadonlyArray<(article: ArticleSpec) => string>
  readonly advice: ReadonlyArray<{
    /** A site of the network that the paragraph may link to (a protected `backlink` link). */
    readonly partner: Link
    /** `partner` is the link's HTML, or "" when this article has no backlink. */
    readonly text: (article: ArticleSpec, partner: string) => string
  }>
  readonly practical: ReadonlyArray<string>
  readonly closing: ReadonlyArray<(article: ArticleSpec) => string>
  /** Domains that link to this website, per backlink category. */
  readonly sources: { readonly industry: ReadonlyArray<string>; readonly local: ReadonlyArray<string> }
  /** Paths of the linking pages, combined with the domains. */
  readonly sourcePaths: ReadonlyArray<string>
  readonly exactAnchors: ReadonlyArray<string>
  readonly backlinks: number
}

const DAY = 24 * 60 * 60 * 1000

/** Midnight UTC of `today`'s day, so that a data set depends on the day only, not on the minute. */
const startOfDay = (today: Date) => Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())

/** An RFC 3339 UTC timestamp `days` after the start of `today` (negative: before), at `hour:minute`. */
export const dayAt = (today: Date, days: number, hour: number, minute: number): string =>
  new Date(startOfDay(today) + days * DAY + (hour * 60 + minute) * 60 * 1000).toISOString().replace(/\.000Z$/, "Z")

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const protectedLink = (type: "backlink" | "internal", link: Link) =>
  `<a data-service-protected="${type}" href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a>`

const pick = <A>(items: ReadonlyArray<A>, index: number): A => items[index % items.length]!

const articleUrl = (site: SiteSpec, article: ArticleSpec) => `${site.website_url}${site.articlePath}${article.slug}`

/**
 * The body of the `index`th article: several paragraphs with one to three protected links (an internal link
 * always, a backlink to a partner on two articles in three, a second internal link on every fourth).
 */
const body = (site: SiteSpec, index: number): string => {
  const article = site.articles[index]!
  const advice = pick(site.advice, index)
  // Two articles in three link to the partner their advice paragraph names.
  const partner = index % 3 === 2 ? "" : protectedLink("backlink", advice.partner)
  const related = [site.articles[(index + 1) % site.articles.length]!]
  if (index % 4 === 0) related.push(site.articles[(index + 5) % site.articles.length]!)
  const relatedItems = related.map(
    (other) => `<li>${protectedLink("internal", { href: articleUrl(site, other), text: other.title })}</li>`
  )
  return [
    `<p>${escapeHtml(article.intro)}</p>`,
    `<h2>${escapeHtml(site.pointsHeading(article))}</h2>`,
    `<p>${escapeHtml(pick(site.context, index)(article))}</p>`,
    `<ul>${article.points.map((point) => `<li>${escapeHtml(point)}</li>`).join("")}</ul>`,
    `<h2>${escapeHtml(site.adviceHeading)}</h2>`,
    `<p>${advice.text(article, partner)}</p>`,
    `<p>${escapeHtml(pick(site.practical, index + 1))}</p>`,
    `<h3>Related reading</h3>`,
    `<ul>${relatedItems.join("")}</ul>`,
    `<p>${escapeHtml(pick(site.closing, index)(article))}</p>`
  ].join("\n")
}

const metaDescription = (article: ArticleSpec) => {
  if (article.intro.length <= 155) return article.intro
  const cut = article.intro.slice(0, 155)
  return `${cut.slice(0, cut.lastIndexOf(" "))}…`
}

/**
 * The site's articles: the published ones spread over the last four months (oldest first), then the scheduled
 * ones dated in the coming days, then the drafts without a date.
 */
/** Two articles in three have a featured image. */
const hasImage = (index: number) => index % 3 !== 1

/** The slugs of the site's articles that have a featured image. */
export const imageSlugs = (site: SiteSpec): ReadonlyArray<string> =>
  site.articles.filter((_, index) => hasImage(index)).map((article) => article.slug)

/** The address of an article's featured image, by its slug. */
export type ImageUrl = (slug: string) => string

const articles = (site: SiteSpec, today: Date, imageUrl: ImageUrl): Array<ArticleJson> => {
  const total = site.articles.length
  const published = total - site.drafts - site.scheduled
  return site.articles.map((article, index) => {
    const hour = 7 + ((index * 5) % 10)
    const minute = (index * 17) % 60
    const [status, published_at] =
      index < published
        ? ([
            "published",
            dayAt(today, -Math.round(118 - (index * 116) / Math.max(1, published - 1)), hour, minute)
          ] as const)
        : index < published + site.scheduled
          ? (["scheduled", dayAt(today, 3 + (index - published) * 4, 8, 0)] as const)
          : (["draft", null] as const)
    return {
      title: article.title,
      url: articleUrl(site, article),
      status,
      published_at,
      target_keyword: article.keyword,
      meta_description: metaDescription(article),
      featured_image_url: hasImage(index) ? imageUrl(article.slug) : null,
      body: body(site, index)
    }
  })
}

const anchorTypes = ["branded", "exact_match", "partial_match", "naked_url", "branded", "generic"] as const
const genericAnchors = ["click here", "read more", "this guide", "their website", "find out more"]

/**
 * Backlinks acquired over the same four months: industry and local sources in turn (two industry to one local),
 * varied anchors; the newest are still pending and a few older ones have been lost.
 */
const backlinks = (site: SiteSpec, today: Date): Array<BacklinkJson> =>
  Array.from({ length: site.backlinks }, (_, index) => {
    const category = index % 3 === 2 ? "local" : "industry"
    const domains = site.sources[category]
    const domain = pick(domains, Math.floor(index / 3) + index)
    const path = pick(site.sourcePaths, index * 3 + 1)
    const target = index % 3 === 0 ? `${site.website_url}/` : articleUrl(site, pick(site.articles, index * 5))
    const anchor_type = pick(anchorTypes, index)
    const anchor_text =
      anchor_type === "branded"
        ? site.name
        : anchor_type === "exact_match"
          ? pick(site.exactAnchors, index)
          : anchor_type === "partial_match"
            ? `advice on ${pick(site.articles, index * 3).keyword}`
            : anchor_type === "naked_url"
              ? site.website_url.replace(/^https?:\/\//, "")
              : pick(genericAnchors, index)
    const daysAgo = Math.round(119 - (index * 118) / Math.max(1, site.backlinks - 1))
    return {
      acquired_at: dayAt(today, -daysAgo, 6 + ((index * 7) % 12), (index * 23) % 60),
      source_domain: domain,
      source_url: `https://${domain}/${path}-${index + 1}`,
      target_url: target,
      anchor_text,
      anchor_type,
      status: daysAgo <= 6 ? "pending" : index % 7 === 3 ? "lost" : "live",
      category
    }
  })

/** The import-file record of a demo website, dated relative to `today`. */
export const buildSite = (site: SiteSpec, today: Date, imageUrl: ImageUrl): SiteJson => ({
  name: site.name,
  website_url: site.website_url,
  language: site.language,
  country: site.country,
  geographic_scope: site.geographic_scope,
  industry: site.industry,
  articles: articles(site, today, imageUrl),
  backlinks: backlinks(site, today)
})
