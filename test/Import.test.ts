import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { verifyPassword } from "../src/Auth/Passwords.js"
import { sanitize } from "../src/Html/Sanitize.js"
import type { ImportRefused } from "../src/Import/ImportRefused.js"
import { Importer } from "../src/Import.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

// --- Builders: every file gets its own e-mails and URLs, so tests share the database without meeting ------------

let counter = 0
const unique = () => ++counter

const makeArticle = <F extends object>(siteUrl: string, fields?: F) => ({
  title: "How to fix a dripping tap",
  url: `${siteUrl}/blog/article-${unique()}`,
  status: "published",
  published_at: "2026-10-01T08:00:00Z",
  target_keyword: "dripping tap",
  meta_description: "Five steps.",
  featured_image_url: null,
  body: '<p>Turn the water off. <a data-service-protected="backlink" href="https://partner.example/">Partner</a></p>',
  ...fields
})

const makeBacklink = <F extends object>(siteUrl: string, fields?: F) => ({
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

const makeSite = <F extends object>(fields?: F) => {
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

const makeAccount = <F extends object>(fields?: F) => ({
  email: `owner${unique()}@example.com`,
  name: "Example Ltd",
  sites: [makeSite()],
  ...fields
})

const importValue = (file: unknown) => Effect.flatMap(Importer, (importer) => importer.importValue(file))

const refusal = (file: unknown) =>
  importValue(file).pipe(
    Effect.flip,
    Effect.map((error: ImportRefused) => error.message)
  )

/** Everything stored for the accounts with these e-mails, with row versions (xmin) to tell a rewrite from none. */
const snapshot = (emails: ReadonlyArray<string>) =>
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

const TestLive = Importer.Default.pipe(Layer.provideMerge(TestDatabaseLive))

layer(TestLive)("Importer", (it) => {
  describe("a valid file", () => {
    it.effect("creates the account with its user, websites, articles and backlinks", () =>
      Effect.gen(function* () {
        const account = makeAccount({ password: "correct horse battery", sites: [makeSite(), makeSite()] })
        const summary = yield* importValue({ accounts: [account] })
        assert.deepStrictEqual(summary.accounts, { created: 1, updated: 0, unchanged: 0 })
        assert.deepStrictEqual(summary.sites, { created: 2, updated: 0, unchanged: 0 })
        assert.deepStrictEqual(summary.articles, { created: 4, updated: 0, unchanged: 0 })
        assert.deepStrictEqual(summary.backlinks, { created: 4, updated: 0, unchanged: 0 })

        const stored = yield* snapshot([account.email])
        assert.strictEqual(stored.accounts.length, 1)
        assert.strictEqual(stored.accounts[0]!["name"], "Example Ltd")
        assert.deepStrictEqual(
          stored.sites.map((row) => row["website_url"]),
          account.sites.map((site) => site.website_url)
        )
        assert.strictEqual(stored.articles.length, 4)
        assert.strictEqual(stored.backlinks.length, 4)

        const sql = yield* SqlClient.SqlClient
        const [user] = yield* sql`select password_hash from users where email = ${account.email}`
        assert.isTrue(yield* verifyPassword("correct horse battery", user!["password_hash"] as string))
        const [article] = yield* sql`
          select status, to_char(published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as published_at
          from articles where url = ${account.sites[0]!.articles[0]!.url}`
        assert.deepStrictEqual(article, { status: "published", published_at: "2026-10-01T08:00:00Z" })
      })
    )

    it.effect("imported again, changes nothing, duplicates nothing and keeps the ids", () =>
      Effect.gen(function* () {
        const account = makeAccount({ password: "correct horse battery" })
        const file = { accounts: [account] }
        yield* importValue(file)
        const before = yield* snapshot([account.email])

        const summary = yield* importValue(file)
        assert.deepStrictEqual(summary, {
          accounts: { created: 0, updated: 0, unchanged: 1 },
          sites: { created: 0, updated: 0, unchanged: 1 },
          articles: { created: 0, updated: 0, unchanged: 2 },
          backlinks: { created: 0, updated: 0, unchanged: 2 }
        })
        // Same rows, same ids, and not even rewritten: every row version is the one before.
        assert.deepStrictEqual(yield* snapshot([account.email]), before)
      })
    )

    it.effect("with a changed title updates that article in place and nothing else", () =>
      Effect.gen(function* () {
        const account = makeAccount()
        yield* importValue({ accounts: [account] })
        const before = yield* snapshot([account.email])

        const site = account.sites[0]!
        const changed = {
          ...account,
          sites: [{ ...site, articles: [{ ...site.articles[0]!, title: "A new title" }, site.articles[1]!] }]
        }
        const summary = yield* importValue({ accounts: [changed] })
        assert.deepStrictEqual(summary.articles, { created: 0, updated: 1, unchanged: 1 })

        const after = yield* snapshot([account.email])
        assert.strictEqual(after.articles[0]!["id"], before.articles[0]!["id"])
        assert.strictEqual(after.articles[0]!["title"], "A new title")
        assert.notStrictEqual(after.articles[0]!["version"], before.articles[0]!["version"])
        assert.deepStrictEqual(after.articles[1], before.articles[1])
        assert.deepStrictEqual(after.sites, before.sites)
      })
    )

    it.effect("matches the account by e-mail in any case and updates its name", () =>
      Effect.gen(function* () {
        const account = makeAccount()
        yield* importValue({ accounts: [account] })
        const summary = yield* importValue({
          accounts: [{ ...account, email: account.email.toUpperCase(), name: "Renamed Ltd" }]
        })
        assert.deepStrictEqual(summary.accounts, { created: 0, updated: 1, unchanged: 0 })
        const stored = yield* snapshot([account.email])
        assert.strictEqual(stored.accounts.length, 1)
        assert.strictEqual(stored.accounts[0]!["name"], "Renamed Ltd")
      })
    )

    it.effect("stores bodies in canonical form with their word count", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const body =
          '<div><P>One   two <font color="red">three</font></p></div><p>four <a data-service-protected="internal" href="/a" class="x">five</a>'
        const canonical = sanitize(body)
        assert.strictEqual(canonical._tag, "Ok")
        const html = canonical._tag === "Ok" ? canonical.html : ""
        assert.notStrictEqual(html, body)

        const account = makeAccount({ sites: [{ ...site, articles: [makeArticle(site.website_url, { body })] }] })
        yield* importValue({ accounts: [account] })
        const stored = yield* snapshot([account.email])
        assert.strictEqual(stored.articles[0]!["body"], html)
        assert.strictEqual(stored.articles[0]!["word_count"], 5)
        // With the protected links read off it and the SHA-256 of the body they belong to.
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ protected_links: unknown; digest: string; body_digest: string }>`
          select protected_links, encode(protected_links_sha256, 'hex') as digest,
            encode(sha256(convert_to(body, 'UTF8')), 'hex') as body_digest
          from articles where url = ${account.sites[0]!.articles[0]!.url}`.pipe(Effect.orDie)
        assert.deepStrictEqual(row!.protected_links, [{ type: "internal", href: "/a", text: "five" }])
        assert.strictEqual(row!.digest, row!.body_digest)
      })
    )

    it.effect("accepts optional fields left out or null", () =>
      Effect.gen(function* () {
        const website_url = `https://bare${unique()}.example.com`
        const account = {
          email: `bare${unique()}@example.com`,
          name: "Bare Ltd",
          sites: [
            {
              website_url,
              name: null,
              articles: [{ url: `${website_url}/a`, body: "" }],
              backlinks: [{ source_url: "https://x.example/1", target_url: `${website_url}/`, category: "local" }]
            }
          ]
        }
        const summary = yield* importValue({ accounts: [account] })
        assert.strictEqual(summary.articles.created, 1)
        assert.strictEqual(summary.backlinks.created, 1)
      })
    )
  })

  describe("a bad file is refused whole, naming the first bad field, and stores nothing", () => {
    it.effect("a bad published_at deep inside the second account", () =>
      Effect.gen(function* () {
        const good = makeAccount()
        const site = makeSite()
        const bad = makeAccount({
          sites: [
            makeSite(),
            {
              ...site,
              articles: [
                makeArticle(site.website_url),
                makeArticle(site.website_url, { published_at: "2026-02-30T08:00:00Z" })
              ]
            }
          ]
        })
        const message = yield* refusal({ accounts: [good, bad] })
        assert.match(message, /^accounts\[1\]\.sites\[1\]\.articles\[1\]\.published_at: must be an RFC 3339 timestamp/)
        const stored = yield* snapshot([good.email, bad.email])
        assert.strictEqual(stored.accounts.length, 0)
      })
    )

    it.effect("an unknown anchor_type", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const account = makeAccount({
          sites: [
            {
              ...site,
              backlinks: [makeBacklink(site.website_url), makeBacklink(site.website_url, { anchor_type: "keyword" })]
            }
          ]
        })
        const message = yield* refusal({ accounts: [account] })
        assert.match(message, /^accounts\[0\]\.sites\[0\]\.backlinks\[1\]\.anchor_type: must be one of exact_match, /)
        assert.strictEqual((yield* snapshot([account.email])).accounts.length, 0)
      })
    )

    it.effect("an article without url", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const { url: _, ...withoutUrl } = makeArticle(site.website_url)
        const account = makeAccount({ sites: [{ ...site, articles: [withoutUrl] }] })
        const message = yield* refusal({ accounts: [account] })
        assert.strictEqual(message, "accounts[0].sites[0].articles[0].url: is missing")
        assert.strictEqual((yield* snapshot([account.email])).accounts.length, 0)
      })
    )

    it.effect("an unknown key", () =>
      Effect.gen(function* () {
        const account = makeAccount({ sites: [makeSite({ colour: "blue" })] })
        const message = yield* refusal({ accounts: [account] })
        assert.match(message, /^accounts\[0\]\.sites\[0\]\.colour: is unexpected/)
        assert.strictEqual((yield* snapshot([account.email])).accounts.length, 0)
      })
    )

    it.effect("a body with <script>, naming the body and the construct", () =>
      Effect.gen(function* () {
        const good = makeAccount()
        const site = makeSite()
        const bad = makeAccount({
          sites: [
            { ...site, articles: [makeArticle(site.website_url, { body: "<p>Hi</p><script>alert(1)</script>" })] }
          ]
        })
        const message = yield* refusal({ accounts: [good, bad] })
        assert.strictEqual(message, "accounts[1].sites[0].articles[0].body: disallowed HTML: <script> element")
        assert.strictEqual((yield* snapshot([good.email, bad.email])).accounts.length, 0)
      })
    )

    it.effect("the same article URL twice in a website", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const article = makeArticle(site.website_url)
        const account = makeAccount({ sites: [{ ...site, articles: [article, { ...article, title: "Other" }] }] })
        const message = yield* refusal({ accounts: [account] })
        assert.strictEqual(
          message,
          "accounts[0].sites[0].articles[1].url: repeats accounts[0].sites[0].articles[0].url"
        )
      })
    )

    it.effect("text that is not JSON", () =>
      Effect.gen(function* () {
        const importer = yield* Importer
        const error = yield* Effect.flip(importer.importJson('{ "accounts": [ '))
        assert.match(error.message, /^the file is not valid JSON \(/)
      })
    )

    it.effect("JSON that is not an import file", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* refusal([1, 2]), 'must be an object such as { "accounts": [] }')
        assert.strictEqual(yield* refusal({}), "accounts: is missing")
      })
    )
  })

  it.effect("a refusal does not echo a huge unknown key in full", () =>
    Effect.gen(function* () {
      const message = yield* refusal({ accounts: [{ ...makeAccount(), ["k".repeat(10_000)]: 1 }] })
      assert.match(message, /^accounts\[0\]\.kkk/)
      assert.isBelow(message.length, 500)
    })
  )
})
