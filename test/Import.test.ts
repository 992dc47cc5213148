import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ArticleEdits } from "../src/Articles/Edits.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { verifyPassword } from "../src/Auth/Passwords.js"
import { sanitize } from "../src/Html/Sanitize.js"
import {
  accountWithArticle,
  contentOf,
  historyOf,
  ImportTestLive,
  importValue,
  makeAccount,
  makeArticle,
  makeSite,
  type StoredRevision,
  snapshot,
  unique,
  withFirstArticle,
  withPartnerLink
} from "./support/ImportFiles.js"

/** Each stored revision of an article's history as [number, origin, reason], oldest first. */
const storyOf = (history: { readonly revisions: ReadonlyArray<StoredRevision> }) =>
  history.revisions.map((revision) => [revision.number, revision.origin, revision.reason])

layer(ImportTestLive)("Importer", (it) => {
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

    it.effect("a backlink's status from the import stands; its lost reason goes unless the import says lost", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const [first, second] = site.backlinks
        const account = makeAccount({ sites: [site] })
        yield* importValue({ accounts: [account] })
        // The link checker found both lost.
        const sql = yield* SqlClient.SqlClient
        const urls = [first!.source_url, second!.source_url]
        yield* sql`update backlinks set status = 'lost', lost_reason = 'link_removed' where source_url in ${sql.in(urls)}`
        const again = { ...site, backlinks: [first, { ...second!, status: "lost" }] }
        yield* importValue({ accounts: [{ ...account, sites: [again] }] })
        const rows = yield* sql`select status, lost_reason from backlinks where source_url in ${sql.in(urls)}
          order by source_url = ${first!.source_url} desc`
        assert.deepStrictEqual(rows, [
          { status: "live", lost_reason: null },
          { status: "lost", lost_reason: "link_removed" }
        ])
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
        const body =
          '<div><P>One   two <font color="red">three</font></p></div><p>four <a data-service-protected="internal" href="/a" class="x">five</a>'
        const canonical = sanitize(body)
        assert.strictEqual(canonical._tag, "Ok")
        const html = canonical._tag === "Ok" ? canonical.html : ""
        assert.notStrictEqual(html, body)

        const account = accountWithArticle({ body })
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

        const body = withPartnerLink("Rewritten.")
        const summary = yield* importValue(
          withFirstArticle(account, (article) => ({ ...article, body })),
          "v2.json"
        )
        assert.deepStrictEqual(summary.articles, { created: 0, updated: 1, unchanged: 1 })
        const changed = yield* historyOf(url)
        assert.strictEqual(changed.revision, 2)
        assert.deepStrictEqual(storyOf(changed), [
          [1, "rewrite", "import v1.json"],
          [2, "rewrite", "import v2.json"]
        ])
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
          const edited = withPartnerLink("Edited by hand.")
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
          assert.deepStrictEqual(storyOf(history), [
            [1, "rewrite", "import first.json"],
            [2, "API", null],
            [3, "rewrite", "import first.json"]
          ])
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
})
