// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ArticleEdits } from "../src/Articles/Edits.js"
import { ArticlesRepo } from "../src/Articles/Repo.js"
import { Sanitizer } from "../src/Articles/Sanitizer.js"
import { readMissingTexts } from "../src/Articles/SearchBackfill.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { ArticleId, SiteId } from "../src/Domain/Ids.js"
import { MAX_MATCH_CHARACTERS } from "../src/Domain/Search.js"
import { Importer } from "../src/Import/Import.js"
import { articleEditor, PROTECTED_BODY } from "./support/ArticlePage.js"
import { assertError } from "./support/ArticleWrites.js"
import { patchArticle, putArticle, request } from "./support/Http.js"
import { newMcpSession, toolData, toolError } from "./support/McpSession.js"
import { type ArticleFields, type SiteFields, TestApp, TestServerLive } from "./support/TestServer.js"

interface Found {
  readonly data: ReadonlyArray<{ readonly id: number; readonly match?: string }>
  readonly meta: Readonly<Record<string, number>>
}

/** A new account with one website (English unless `site` says otherwise) holding `articles`, created in order. */
const websiteWith = (articles: ReadonlyArray<ArticleFields>, site: SiteFields = { language: "en" }) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const { accountId, key } = yield* app.makeAccount()
    const siteId = yield* app.makeSite(accountId, site)
    const ids: Array<ArticleId> = []
    for (const fields of articles) ids.push(yield* app.makeArticle(siteId, fields))
    return { accountId, key, siteId, ids }
  })

/** The list through REST with `q` (and more of the query); the answer. */
const search = (key: string, siteId: SiteId, q: string, more = "") =>
  request("GET", `/api/v1/sites/${siteId}/articles?q=${encodeURIComponent(q)}${more}`, { key })

/** The ids a search finds (200 asserted). */
const found = (key: string, siteId: SiteId, q: string, more = "") =>
  Effect.gen(function* () {
    const answer = yield* search(key, siteId, q, more)
    assert.strictEqual(answer.status, 200, answer.text)
    const body = answer.body as Found
    return body.data.map((item) => item.id)
  })

const body = (text: string) => ({ body: `<p>${text}</p>` })

const urlOf = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ url: string }>`select url from articles where id = ${id}`.pipe(Effect.orDie),
      (rows) => rows[0]!.url
    )
  )

/** Imports `articles` into the account's website `siteId` (found by its address), with the website's `fields`. */
const importInto = (
  accountId: number,
  siteId: SiteId,
  fields: Record<string, unknown>,
  articles: ReadonlyArray<Record<string, unknown>>
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [site] = yield* sql<{ website_url: string }>`select website_url from sites where id = ${siteId}`
    const [user] = yield* sql<{ email: string }>`select email from users where account_id = ${accountId}`
    const sites = [{ website_url: site!.website_url, ...fields, articles }]
    const file = { accounts: [{ email: user!.email, name: "Example Ltd", sites }] }
    yield* Effect.flatMap(Importer, (importer) => importer.importValue(file, "search.json")).pipe(
      Effect.provide(Importer.Default)
    )
  }).pipe(Effect.orDie)

layer(TestServerLive)("GET /sites/{id}/articles?q=", (it) => {
  it.effect("finds words of the body's text, title and target keyword, never of its markup or attribute values", () =>
    Effect.gen(function* () {
      const { key, siteId, ids } = yield* websiteWith([
        {
          body: '<p class="hiddenclass">Visible <a href="https://example.com/secretpath" title="tooltipword">anchorword</a></p><img src="/x.png" alt="altword">'
        },
        { title: "Boiler servicing", ...body("Other text.") },
        { target_keyword: "radiator bleeding", ...body("Other text.") }
      ])
      for (const q of ["hiddenclass", "secretpath", "example.com", "tooltipword", "altword", "href", "img", "p"]) {
        assert.deepStrictEqual(yield* found(key, siteId, q), [], q)
      }
      assert.deepStrictEqual(yield* found(key, siteId, "anchorword"), [ids[0]])
      assert.deepStrictEqual(yield* found(key, siteId, "boiler"), [ids[1]])
      assert.deepStrictEqual(yield* found(key, siteId, "radiator"), [ids[2]])
    })
  )

  it.effect("every word must occur; a quoted phrase matches only as that phrase", () =>
    Effect.gen(function* () {
      const { key, siteId, ids } = yield* websiteWith([
        body("The kitchen pipe burst at night."),
        body("A pipe under the kitchen sink."),
        body("A kitchen without plumbing.")
      ])
      assert.sameMembers([...(yield* found(key, siteId, "kitchen pipe"))], [ids[0], ids[1]])
      assert.deepStrictEqual(yield* found(key, siteId, '"kitchen pipe"'), [ids[0]])
      assert.deepStrictEqual(yield* found(key, siteId, '"kitchen sink" pipe'), [ids[1]])
      assert.deepStrictEqual(yield* found(key, siteId, '"pipe kitchen"'), [])
      assert.deepStrictEqual(yield* found(key, siteId, "kitchen plumbing"), [ids[2]])
      assert.deepStrictEqual(yield* found(key, siteId, "kitchen boiler"), [])
      // A q with no word the language keeps (stop words, punctuation, empty quotes) finds nothing, and is no error.
      for (const q of ["the", "!!! ?", '""', '"']) assert.deepStrictEqual(yield* found(key, siteId, q), [], q)
    })
  )

  it.effect("ignores case and accents, both in the text and in q", () =>
    Effect.gen(function* () {
      const { key, siteId, ids } = yield* websiteWith([body("Crème Brûlée at the CAFÉ"), body("A plain cafe")])
      assert.deepStrictEqual(yield* found(key, siteId, "creme BRULEE"), [ids[0]])
      assert.sameMembers([...(yield* found(key, siteId, "Café"))], [ids[0], ids[1]])
      assert.deepStrictEqual(yield* found(key, siteId, '"crème brûlée"'), [ids[0]])
    })
  )

  it.effect(
    "word forms follow an English website's language; a language without a dictionary matches words as written",
    () =>
      Effect.gen(function* () {
        const english = yield* websiteWith([body("The old pipe leaks.")], { language: "en-GB" })
        assert.deepStrictEqual(yield* found(english.key, english.siteId, "leaking"), english.ids)
        assert.deepStrictEqual(yield* found(english.key, english.siteId, "pipes"), english.ids)
        const other = yield* websiteWith([body("The old pipe leaks.")], { language: "ja" })
        assert.deepStrictEqual(yield* found(other.key, other.siteId, "leaking"), [])
        assert.deepStrictEqual(yield* found(other.key, other.siteId, "LEAKS"), other.ids)
        // `simple` keeps every word: "the" is found, where English leaves it out as a stop word.
        assert.deepStrictEqual(yield* found(other.key, other.siteId, "the old"), other.ids)
      })
  )

  it.effect("orders by relevance (title above target keyword above body), then newest first", () =>
    Effect.gen(function* () {
      const { key, siteId, ids } = yield* websiteWith([
        { published_at: "2026-10-05T00:00:00Z", ...body("Drain cleaning tips.") },
        { published_at: "2026-10-01T00:00:00Z", title: "Drain guide", ...body("Tips.") },
        { published_at: "2026-10-02T00:00:00Z", target_keyword: "drain", ...body("Tips.") },
        { published_at: "2026-10-04T00:00:00Z", ...body("More on each drain.") },
        { published_at: "2026-10-03T00:00:00Z", ...body("Nothing here.") }
      ])
      assert.deepStrictEqual(yield* found(key, siteId, "drain"), [ids[1], ids[2], ids[0], ids[3]])
    })
  )

  it.effect("each item found carries match: plain text of at most 200 characters around the hit; without q, none", () =>
    Effect.gen(function* () {
      const filler = "Words before the hit, and more of them, again and again. ".repeat(12)
      // Words so long that the fragment around the hit is longer than an excerpt may be.
      const long = "Pneumonoultramicroscopicsilicovolcanoconiosis ".repeat(30)
      const { key, siteId, ids } = yield* websiteWith([
        {
          body: `<p>${filler}</p><p>The <b>siphon</b> was <a href="https://example.com/">blocked</a>.</p><p>${filler}</p>`
        },
        { body: `<p>${long} the siphon ${long}</p>` }
      ])
      const answer = yield* search(key, siteId, "siphon")
      const items = (answer.body as Found).data
      assert.sameMembers(
        items.map((item) => item.id),
        ids
      )
      for (const item of items) {
        assert.isString(item.match)
        assert.isAtMost(item.match!.length, MAX_MATCH_CHARACTERS)
        assert.include(item.match!, "siphon")
        assert.notMatch(item.match!, /[<>]|href|example\.com/)
      }
      const listed = yield* request("GET", `/api/v1/sites/${siteId}/articles`, { key })
      assert.notProperty(listed.body.data[0], "match")
    })
  )

  it.effect("status, from/to and paging apply to a search; meta counts the articles found", () =>
    Effect.gen(function* () {
      const { key, siteId, ids } = yield* websiteWith([
        { status: "draft", published_at: "2026-10-01T00:00:00Z", ...body("Gutter repair.") },
        { status: "published", published_at: "2026-10-02T00:00:00Z", ...body("Gutter repair.") },
        { status: "published", published_at: "2026-10-03T00:00:00Z", ...body("Gutter repair.") },
        { status: "published", published_at: "2026-10-04T00:00:00Z", ...body("Roof repair.") }
      ])
      assert.deepStrictEqual(yield* found(key, siteId, "gutter", "&status=published"), [ids[2], ids[1]])
      assert.deepStrictEqual(yield* found(key, siteId, "gutter", "&from=2026-10-02&to=2026-10-02"), [ids[1]])
      const second = yield* search(key, siteId, "repair", "&per_page=3&page=2")
      assert.deepStrictEqual(
        (second.body as Found).data.map((item) => item.id),
        [ids[0]]
      )
      assert.deepStrictEqual((second.body as Found).meta, { page: 2, per_page: 3, total: 4, last_page: 2 })
    })
  )

  it.effect("another account's website is a 404; an empty, over-long or multi-line q is a 422 naming q", () =>
    Effect.gen(function* () {
      const mine = yield* websiteWith([body("Pipe.")])
      const theirs = yield* websiteWith([body("Pipe.")])
      assertError(yield* search(mine.key, theirs.siteId, "pipe"), 404, "not_found")
      for (const q of ["", "   ", "x".repeat(201), "pipe\nleak", "pipe\u0007"]) {
        const answer = yield* search(mine.key, mine.siteId, q)
        assertError(answer, 422, "validation_error")
        assert.match(answer.body.message, /^q: /, JSON.stringify(q))
      }
      assert.deepStrictEqual(yield* found(mine.key, mine.siteId, "p".repeat(200)), [])
    })
  )

  it.effect("the tool list_articles searches with q and answers the same items, match included", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const session = yield* newMcpSession
      const sql = yield* SqlClient.SqlClient
      yield* sql`update sites set language = 'en' where id = ${session.siteId}`
      const id = yield* app.makeArticle(session.siteId, body("Our boilers are serviced yearly."))
      yield* app.makeArticle(session.siteId, body("Unrelated."))
      const data = (yield* toolData(session, "list_articles", {
        site_id: session.siteId,
        q: "boiler service"
      })) as Found
      assert.deepStrictEqual(
        data.data.map((item) => item.id),
        [id]
      )
      const rest = yield* search(session.key, session.siteId, "boiler service")
      assert.deepStrictEqual(data, rest.body)
      assert.include(data.data[0]!.match!, "boilers")
      const refused = yield* toolError(session, "list_articles", { site_id: session.siteId, q: "" })
      assert.strictEqual(refused.error, "validation_error")
    })
  )

  it.effect("what is found follows the article after PATCH, PUT, an import and a restore", () =>
    Effect.gen(function* () {
      const { key, siteId, ids, accountId } = yield* websiteWith([body("A tap that drips.")])
      const id = ids[0]!
      const patched = yield* patchArticle(id, key, { replacements: [{ find: "drips", replace: "squeaks" }] })
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepStrictEqual(yield* found(key, siteId, "drips"), [])
      assert.deepStrictEqual(yield* found(key, siteId, "squeaking"), [id])
      const put = yield* putArticle(id, key, { body: "<p>A valve that hums.</p>", title: "Valves" })
      assert.strictEqual(put.status, 200, put.text)
      assert.deepStrictEqual(yield* found(key, siteId, "squeaks"), [])
      assert.deepStrictEqual(yield* found(key, siteId, "hum valve"), [id])

      const keys = yield* ApiKeys
      const credential = Option.getOrThrow(yield* keys.authenticate(key).pipe(Effect.orDie))
      const edits = yield* ArticleEdits
      yield* edits.restore({ credential, origin: "API" }, id, 1).pipe(Effect.orDie)
      assert.deepStrictEqual(yield* found(key, siteId, "hums"), [])
      assert.deepStrictEqual(yield* found(key, siteId, "squeaks"), [id])

      // An import of the same website (found by its address) rewrites the article found by its URL.
      yield* importInto(accountId, siteId, { language: "en" }, [
        { url: yield* urlOf(id), title: "Imported", body: "<p>A cistern that overflows.</p>" }
      ])
      assert.deepStrictEqual(yield* found(key, siteId, "squeaks"), [])
      assert.deepStrictEqual(yield* found(key, siteId, "overflowing cistern"), [id])
    })
  )

  it.effect("what is found follows a save in the editor", () =>
    Effect.gen(function* () {
      const { key, articleId, save } = yield* articleEditor
      const { site_id } = (yield* request("GET", `/api/v1/articles/${articleId}`, { key })).body.data
      assert.deepStrictEqual(yield* found(key, site_id, "today"), [articleId])
      const saved = yield* save({ body: PROTECTED_BODY.replace("today", "this weekend") })
      assert.strictEqual(saved.status, 303, saved.text)
      assert.deepStrictEqual(yield* found(key, site_id, "today"), [])
      assert.deepStrictEqual(yield* found(key, site_id, '"this weekend"'), [articleId])
    })
  )

  it.effect("an article stored before search is found by its title, then by its body once its text is read", () =>
    Effect.gen(function* () {
      const { key, siteId } = yield* websiteWith([])
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: ArticleId }>`
        insert into articles (site_id, title, url, body, revision)
        values (${siteId}, 'Tap repair', 'https://example.com/old', '<p>An old <a href="https://x.example/">washer</a> story</p>', 3)
        returning id`
      assert.deepStrictEqual(yield* found(key, siteId, "tap"), [row!.id])
      assert.deepStrictEqual(yield* found(key, siteId, "washer"), [])
      const read = yield* readMissingTexts.pipe(Effect.provide([ArticlesRepo.Default, Sanitizer.Default]))
      assert.isAtLeast(read, 1)
      assert.deepStrictEqual(yield* found(key, siteId, "washer story"), [row!.id])
      assert.deepStrictEqual(yield* found(key, siteId, "x.example"), [])
    })
  )
})
