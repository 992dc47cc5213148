// @tags: engine runtime
import { Readable } from "node:stream"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ArticleEdits } from "../src/Articles/Edits.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { verifyPassword } from "../src/Auth/Passwords.js"
import type { AccountId, ArticleId } from "../src/Domain/Ids.js"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { sanitize } from "../src/Html/Sanitize.js"
import { Importer } from "../src/Import/Import.js"
import type { ImportRefused } from "../src/Import/ImportRefused.js"
import { MAX_RECORD_BYTES } from "../src/Import/JsonPosition.js"
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

const importValue = (file: unknown, source = "accounts.json") =>
  Effect.flatMap(Importer, (importer) => importer.importValue(file, source))

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

interface StoredRevision {
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
const historyOf = (url: string) =>
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

const contentOf = (revision: StoredRevision) => ({
  title: revision.title,
  body: revision.body,
  meta_description: revision.meta_description,
  featured_image_url: revision.featured_image_url
})

/** The file with the first article of the first website replaced by `change(article)`. */
const withFirstArticle = <A extends ReturnType<typeof makeAccount>>(
  account: A,
  change: (article: ReturnType<typeof makeArticle>) => object
) => {
  const site = account.sites[0]!
  const [first, ...rest] = site.articles
  return { accounts: [{ ...account, sites: [{ ...site, articles: [change(first!), ...rest] }] }] }
}

const TestLive = Layer.mergeAll(Importer.Default, ArticleEdits.Default, ApiKeys.Default).pipe(
  Layer.provideMerge(TestDatabaseLive)
)

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

  describe("revisions", () => {
    it.effect(
      "every article the import creates has revision 1 with its content, origin rewrite and reason import <file>",
      () =>
        Effect.gen(function* () {
          const account = makeAccount({ sites: [makeSite(), makeSite()] })
          yield* importValue({ accounts: [account] }, "clients-2026.json")
          for (const article of account.sites.flatMap((site) => site.articles)) {
            const history = yield* historyOf(article.url)
            assert.strictEqual(history.revision, 1)
            assert.strictEqual(history.revisions.length, 1)
            const [first] = history.revisions
            assert.strictEqual(first!.number, 1)
            assert.strictEqual(first!.origin, "rewrite")
            assert.strictEqual(first!.reason, "import clients-2026.json")
            assert.isNull(first!.api_key_id)
            assert.deepStrictEqual(contentOf(first!), history.content)
          }
        })
    )

    it.effect("importing the same file again stores no revision", () =>
      Effect.gen(function* () {
        const account = makeAccount()
        yield* importValue({ accounts: [account] })
        yield* importValue({ accounts: [account] }, "again.json")
        const history = yield* historyOf(account.sites[0]!.articles[0]!.url)
        assert.strictEqual(history.revision, 1)
        assert.deepStrictEqual(
          history.revisions.map((revision) => revision.number),
          [1]
        )
      })
    )

    it.effect("an import that changes the body stores revision 2 with the new body; a status change stores none", () =>
      Effect.gen(function* () {
        const account = makeAccount()
        const url = account.sites[0]!.articles[0]!.url
        yield* importValue({ accounts: [account] }, "v1.json")
        const original = yield* historyOf(url)

        const body =
          '<p>Rewritten. <a data-service-protected="backlink" href="https://partner.example/">Partner</a></p>'
        const summary = yield* importValue(
          withFirstArticle(account, (article) => ({ ...article, body })),
          "v2.json"
        )
        assert.deepStrictEqual(summary.articles, { created: 0, updated: 1, unchanged: 1 })
        const changed = yield* historyOf(url)
        assert.strictEqual(changed.revision, 2)
        assert.deepStrictEqual(
          changed.revisions.map((revision) => [revision.number, revision.origin, revision.reason]),
          [
            [1, "rewrite", "import v1.json"],
            [2, "rewrite", "import v2.json"]
          ]
        )
        assert.strictEqual(changed.revisions[1]!.body, body)
        assert.deepStrictEqual(contentOf(changed.revisions[0]!), original.content)

        // The status is not part of a revision's content: updated in place, no revision.
        const drafted = yield* importValue(
          withFirstArticle(account, (article) => ({ ...article, body, status: "draft" })),
          "v3.json"
        )
        assert.deepStrictEqual(drafted.articles, { created: 0, updated: 1, unchanged: 1 })
        const after = yield* historyOf(url)
        assert.strictEqual(after.revision, 2)
        assert.strictEqual(after.revisions.length, 2)
      })
    )

    it.effect(
      "an import after an API edit stores its revision after the edit's, so the edit stays in the history",
      () =>
        Effect.gen(function* () {
          const account = makeAccount()
          const url = account.sites[0]!.articles[0]!.url
          yield* importValue({ accounts: [account] }, "first.json")
          const imported = yield* historyOf(url)

          const keys = yield* ApiKeys
          const { row } = yield* keys.create({ accountId: imported.accountId, name: "test", isAdmin: false })
          const edits = yield* ArticleEdits
          const edited =
            '<p>Edited by hand. <a data-service-protected="backlink" href="https://partner.example/">Partner</a></p>'
          yield* edits
            .replace(
              {
                credential: {
                  kind: "api_key",
                  id: row.id,
                  accountId: imported.accountId,
                  isAdmin: false,
                  canWrite: true
                },
                origin: "API"
              },
              imported.id,
              { body: edited }
            )
            .pipe(Effect.orDie)

          // The same file again: it differs from the edited article, so it is a change, stored as revision 3.
          const summary = yield* importValue({ accounts: [account] }, "first.json")
          assert.deepStrictEqual(summary.articles, { created: 0, updated: 1, unchanged: 1 })
          const history = yield* historyOf(url)
          assert.strictEqual(history.revision, 3)
          assert.deepStrictEqual(
            history.revisions.map((revision) => [revision.number, revision.origin, revision.reason]),
            [
              [1, "rewrite", "import first.json"],
              [2, "API", null],
              [3, "rewrite", "import first.json"]
            ]
          )
          assert.strictEqual(history.revisions[1]!.body, edited)
          assert.deepStrictEqual(contentOf(history.revisions[2]!), contentOf(history.revisions[0]!))
          assert.deepStrictEqual(history.content, contentOf(history.revisions[2]!))
          // The edit's key is kept with its revision.
          assert.strictEqual(Number(history.revisions[1]!.api_key_id), row.id)
        })
    )

    it.effect("an import of more articles than one batch stores one revision for each", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const articles = Array.from({ length: 450 }, () => makeArticle(site.website_url))
        const account = makeAccount({ sites: [{ ...site, articles }] })
        const summary = yield* importValue({ accounts: [account] }, "big.json")
        assert.deepStrictEqual(summary.articles, { created: 450, updated: 0, unchanged: 0 })
        const sql = yield* SqlClient.SqlClient
        const [counts] = yield* sql<{ articles: number; at_one: number; revisions: number }>`
          select count(*)::int as articles, count(*) filter (where a.revision = 1)::int as at_one,
            (select count(*)::int from article_revisions r join articles b on b.id = r.article_id
              where b.site_id = a.site_id and r.number = 1 and r.reason = 'import big.json') as revisions
          from articles a join sites s on s.id = a.site_id
          where s.website_url = ${site.website_url} group by a.site_id`.pipe(Effect.orDie)
        assert.deepStrictEqual(counts, { articles: 450, at_one: 450, revisions: 450 })

        const again = yield* importValue({ accounts: [account] }, "big.json")
        assert.deepStrictEqual(again.articles, { created: 0, updated: 0, unchanged: 450 })
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
        const error = yield* Effect.flip(importer.importJson('{ "accounts": [ ', "broken.json"))
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

  describe("an import is as strict and as bounded as the API", () => {
    it.effect("a NUL anywhere is refused naming the field: an e-mail, a body, a title", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const cases = [
          [makeAccount({ email: `a\u0000${unique()}@example.com` }), "accounts[0].email"],
          [
            makeAccount({
              sites: [{ ...site, articles: [makeArticle(site.website_url, { body: "<p>a\u0000b</p>" })] }]
            }),
            "accounts[0].sites[0].articles[0].body"
          ],
          [
            makeAccount({ sites: [{ ...site, articles: [makeArticle(site.website_url, { title: "a\u0000" })] }] }),
            "accounts[0].sites[0].articles[0].title"
          ]
        ] as const
        for (const [account, path] of cases) {
          assert.strictEqual(yield* refusal({ accounts: [account] }), `${path}: must not contain NUL (U+0000)`)
          // PostgreSQL text cannot hold NUL: the e-mail is looked up without it.
          assert.strictEqual((yield* snapshot([account.email.replace("\u0000", "")])).accounts.length, 0)
        }
      })
    )

    it.effect("a body over the API's bounds (characters, elements) is refused naming it, with the bound", () =>
      Effect.gen(function* () {
        const site = makeSite()
        for (const [body, words] of [
          [`<p>${"x".repeat(MAX_BODY_CHARACTERS)}</p>`, `must be at most ${MAX_BODY_CHARACTERS} characters`],
          ["<p>x".repeat(MAX_BODY_ELEMENTS + 1), `must have at most ${MAX_BODY_ELEMENTS} HTML elements`]
        ] as const) {
          const account = makeAccount({ sites: [{ ...site, articles: [makeArticle(site.website_url, { body })] }] })
          const message = yield* refusal({ accounts: [account] })
          assert.isTrue(message.startsWith(`accounts[0].sites[0].articles[0].body: ${words}`), message)
          assert.strictEqual((yield* snapshot([account.email])).accounts.length, 0)
        }
      })
    )

    it.effect("JSON nested deeper than 64 levels is refused naming where, not a stack overflow", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const account = makeAccount({ sites: [{ ...site, articles: [makeArticle(site.website_url)] }] })
        const text = JSON.stringify({ accounts: [account] }).replace(
          '"title":"How to fix a dripping tap"',
          `"title":${'{"a":'.repeat(1_000_000)}1${"}".repeat(1_000_000)}`
        )
        const message = yield* Effect.flatMap(Importer, (importer) => importer.importJson(text, "deep.json")).pipe(
          Effect.flip,
          Effect.map((error) => error.message)
        )
        assert.strictEqual(message, "accounts[0].sites[0].articles[0].title.a: is nested deeper than 64 levels")
        assert.strictEqual((yield* snapshot([account.email])).accounts.length, 0)
      })
    )

    it.effect("a record larger than the bound is refused while it is read: an endless body is read no further", () =>
      Effect.gen(function* () {
        const email = `endless${unique()}@example.com`
        let read = 0
        async function* endless() {
          yield Buffer.from(
            `{"accounts":[{"email":"${email}","name":"E","sites":[{"website_url":"https://endless.example","articles":[{"url":"https://endless.example/a","body":"<p>`
          )
          const chunk = Buffer.alloc(64 * 1024, "x")
          for (;;) {
            read += chunk.length
            yield chunk
          }
        }
        const importer = yield* Importer
        const message = yield* importer
          .importSource({ open: () => Readable.from(endless()), size: 0, name: "endless.json" })
          .pipe(
            Effect.flip,
            Effect.map((error) => error.message)
          )
        assert.strictEqual(
          message,
          `accounts[0].sites[0].articles[0]: is larger than ${MAX_RECORD_BYTES} bytes of JSON; an article body may have at most ${MAX_BODY_CHARACTERS} characters`
        )
        assert.isAtMost(read, MAX_RECORD_BYTES + 2 * 64 * 1024)
        assert.strictEqual((yield* snapshot([email])).accounts.length, 0)
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
