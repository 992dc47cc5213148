import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ArticleEdits } from "../../src/Articles/Edits.js"
import { ApiKeys } from "../../src/Auth/ApiKeys.js"
import type { AccountId, ArticleId } from "../../src/Domain/Ids.js"
import { Importer } from "../../src/Import/Import.js"
import type { ImportRefused } from "../../src/Import/ImportRefused.js"
import { TestDatabaseLive } from "./TestDatabase.js"

// --- Builders of import files: every file gets its own e-mails and URLs, so tests share the database without meeting

let counter = 0
export const unique = () => ++counter

/** A body of one paragraph: `text` and the protected link every built article carries. */
export const withPartnerLink = (text: string) =>
  `<p>${text} <a data-service-protected="backlink" href="https://partner.example/">Partner</a></p>`

export const makeArticle = <F extends object>(siteUrl: string, fields?: F) => ({
  title: "How to fix a dripping tap",
  url: `${siteUrl}/blog/article-${unique()}`,
  status: "published",
  published_at: "2026-10-01T08:00:00Z",
  target_keyword: "dripping tap",
  meta_description: "Five steps.",
  featured_image_url: null,
  body: withPartnerLink("Turn the water off."),
  ...fields
})

export const makeBacklink = <F extends object>(siteUrl: string, fields?: F) => ({
  acquired_at: "2026-10-02T00:00:00Z",
  source_domain: "news.example.org",
  source_url: `https://news.example.org/story-${unique()}`,
  target_url: `${siteUrl}/`,
  anchor_text: "Example",
  anchor_type: "branded",
  status: "live",
  category: "industry",
  ...fields
})

export const makeSite = <F extends object>(fields?: F) => {
  const website_url = `https://site${unique()}.example.com`
  return {
    name: "Example Plumbing",
    website_url,
    language: "en-GB",
    country: "GB",
    geographic_scope: "national",
    industry: "Plumbing",
    articles: [makeArticle(website_url), makeArticle(website_url)],
    backlinks: [makeBacklink(website_url), makeBacklink(website_url, { category: "local", anchor_type: "generic" })],
    ...fields
  }
}

export const makeAccount = <F extends object>(fields?: F) => ({
  email: `owner${unique()}@example.com`,
  name: "Example Ltd",
  sites: [makeSite()],
  ...fields
})

/** An account with one website of one article, built with `fields`. */
export const accountWithArticle = <F extends object>(fields?: F) => {
  const site = makeSite()
  return makeAccount({ sites: [{ ...site, articles: [makeArticle(site.website_url, fields)] }] })
}

export const importValue = (file: unknown, source = "accounts.json") =>
  Effect.flatMap(Importer, (importer) => importer.importValue(file, source))

export const refusal = (file: unknown) =>
  importValue(file).pipe(
    Effect.flip,
    Effect.map((error: ImportRefused) => error.message)
  )

/** Everything stored for the accounts with these e-mails, with row versions (xmin) to tell a rewrite from none. */
export const snapshot = (emails: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* sql`
      select a.id, a.name, a.xmin::text as version from accounts a
      join users u on u.account_id = a.id where lower(u.email) in ${sql.in(emails.map((e) => e.toLowerCase()))}
      order by a.id`
    const ids = accounts.map((row) => row["id"] as number)
    if (ids.length === 0) return { accounts, sites: [], articles: [], backlinks: [] }
    const sites = yield* sql`
      select id, website_url, xmin::text as version from sites where account_id in ${sql.in(ids)} order by id`
    const siteIds = sites.map((row) => row["id"] as number)
    const articles = yield* sql`
      select id, url, title, body, word_count, xmin::text as version from articles
      where site_id in ${sql.in(siteIds)} order by id`
    const backlinks = yield* sql`
      select id, source_url, target_url, xmin::text as version from backlinks
      where site_id in ${sql.in(siteIds)} order by id`
    return { accounts, sites, articles, backlinks }
  }).pipe(Effect.orDie)

export interface StoredRevision {
  readonly number: number
  readonly origin: string
  readonly reason: string | null
  readonly api_key_id: number | null
  readonly title: string | null
  readonly body: string
  readonly meta_description: string | null
  readonly featured_image_url: string | null
}

/** An article's id, its revision counter and content, and its stored revisions oldest first; found by URL. */
export const historyOf = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [article] = yield* sql<{
      id: number
      account_id: number
      revision: number
      title: string | null
      body: string
      meta_description: string | null
      featured_image_url: string | null
    }>`select a.id, s.account_id, a.revision, a.title, a.body, a.meta_description, a.featured_image_url
      from articles a join sites s on s.id = a.site_id where a.url = ${url}`
    const revisions = yield* sql<StoredRevision>`
      select number, origin, reason, api_key_id, title, body, meta_description, featured_image_url
      from article_revisions where article_id = ${article!.id} order by number`
    const { id, account_id, revision, ...content } = article!
    return { id: id as ArticleId, accountId: account_id as AccountId, revision, content, revisions }
  }).pipe(Effect.orDie)

export const contentOf = (revision: StoredRevision) => ({
  title: revision.title,
  body: revision.body,
  meta_description: revision.meta_description,
  featured_image_url: revision.featured_image_url
})

/** The file with the first article of the first website replaced by `change(article)`. */
export const withFirstArticle = <A extends ReturnType<typeof makeAccount>>(
  account: A,
  change: (article: ReturnType<typeof makeArticle>) => object
) => {
  const site = account.sites[0]!
  const [first, ...rest] = site.articles
  return { accounts: [{ ...account, sites: [{ ...site, articles: [change(first!), ...rest] }] }] }
}

/** The importer with what its tests call besides, on the test database. */
export const ImportTestLive = Layer.mergeAll(Importer.Default, ArticleEdits.Default, ApiKeys.Default).pipe(
  Layer.provideMerge(TestDatabaseLive)
)
