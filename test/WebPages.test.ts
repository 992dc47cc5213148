import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { makeBrowser } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import {
  articleIds,
  assertPageHeaders,
  inMonth,
  numbersIn,
  open,
  rowCount,
  rowWith,
  signedInAccount,
  statOf
} from "./support/WebPages.js"

/** Under `layer(...)` the server runs on the test clock, which starts at the epoch: "this month" needs the real now. */
const startClock = TestClock.setTime(Date.now())

/** At the start of a test: the clock started, and a new account's user signed in. */
const signedIn = (options?: { readonly admin?: boolean }) => Effect.andThen(startClock, signedInAccount(options))

layer(TestServerLive)("web pages: websites", (it) => {
  describe("the session guard", () => {
    it.effect("signed out, every page is a 303 to /signin with return_to, and / goes to /sites", () =>
      Effect.gen(function* () {
        yield* startClock
        const app = yield* TestApp
        const browser = makeBrowser(app.baseUrl)
        for (const path of ["/sites", "/sites/1?page=2", "/connection"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 303, path)
          assert.strictEqual(reply.location, `/signin?return_to=${encodeURIComponent(path)}`)
        }
        const root = yield* browser.get("/")
        assert.strictEqual(root.status, 303)
        assert.strictEqual(root.location, "/sites")
      })
    )

    it.effect("after signing in from the redirect, the user lands on the page first asked for", () =>
      Effect.gen(function* () {
        const { browser } = yield* signedIn()
        const page = yield* open(browser, "/connection")
        assert.include(page.text, "<h1>Site connection</h1>")
      })
    )
  })

  describe("GET /sites", () => {
    it.effect("lists only the account's websites, with articles published and backlinks acquired this month", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn()
        const busy = yield* app.makeSite(accountId, { name: "Busy plumber", website_url: "https://busy.example" })
        yield* app.makeSite(accountId, { name: "Quiet lawyer" })
        for (const day of [1, 2, 3]) yield* app.makeArticle(busy, { published_at: inMonth(day) })
        yield* app.makeArticle(busy, { published_at: inMonth(15, 1) })
        yield* app.makeArticle(busy, { status: "draft", published_at: null })
        yield* app.makeBacklink(busy, { acquired_at: inMonth(1), category: "industry" })
        yield* app.makeBacklink(busy, { acquired_at: inMonth(2), category: "local" })
        yield* app.makeBacklink(busy, { acquired_at: inMonth(20, 1), category: "local" })
        const other = yield* app.makeAccount()
        yield* app.makeSite(other.accountId, { name: "Someone else's site" })

        const page = yield* open(browser, "/sites")
        assert.deepStrictEqual(numbersIn(rowWith(page.text, "Busy plumber")), [3, 2])
        assert.deepStrictEqual(numbersIn(rowWith(page.text, "Quiet lawyer")), [0, 0])
        assert.include(rowWith(page.text, "Busy plumber"), `href="/sites/${busy}"`)
        assert.notInclude(page.text, "Someone else")
      })
    )

    it.effect("an admin user sees only their own account's websites, and another account's website is 404", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn({ admin: true })
        yield* app.makeSite(accountId, { name: "Admin's own site" })
        const other = yield* app.makeAccount()
        const foreign = yield* app.makeSite(other.accountId, { name: "A customer's site" })
        const page = yield* open(browser, "/sites")
        assert.include(page.text, "Admin&#39;s own site")
        assert.notInclude(page.text, "A customer")
        assert.strictEqual((yield* browser.get(`/sites/${foreign}`)).status, 404)
      })
    )

    it.effect("a website named <script>alert(1)</script> appears escaped on the list and on its page", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn()
        const name = "<script>alert(1)</script>"
        const id = yield* app.makeSite(accountId, { name, website_url: "javascript:alert(2)" })
        for (const path of ["/sites", `/sites/${id}`]) {
          const page = yield* open(browser, path)
          assert.include(page.text, "&lt;script&gt;alert(1)&lt;/script&gt;")
          assert.notInclude(page.text, name)
          // Only http(s) addresses become links.
          assert.notInclude(page.text, 'href="javascript:')
        }
      })
    )
  })

  describe("GET /sites/:id", () => {
    it.effect("another account's website, a missing one and a non-id are 404 pages with the page headers", () =>
      Effect.gen(function* () {
        const { app, browser } = yield* signedIn()
        const other = yield* app.makeAccount()
        const foreign = yield* app.makeSite(other.accountId, { name: "Not yours" })
        for (const path of [`/sites/${foreign}`, "/sites/999999999", "/sites/abc", "/sites/0"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 404, path)
          assertPageHeaders(reply)
          assert.notInclude(reply.text, "Not yours")
        }
      })
    )

    it.effect("shows this month's counts, filters articles by status and pages articles and backlinks", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn()
        const site = yield* app.makeSite(accountId, { name: "Paged site" })
        // 25 published this month (newest first: day 25 … day 1), then 3 drafts without a date (last).
        const published = []
        for (let day = 1; day <= 25; day++) {
          published.push(yield* app.makeArticle(site, { published_at: inMonth(day) }))
        }
        const drafts = []
        for (let i = 0; i < 3; i++) drafts.push(yield* app.makeArticle(site, { status: "draft", published_at: null }))
        for (let i = 0; i < 22; i++) yield* app.makeBacklink(site, { acquired_at: inMonth(1), category: "industry" })
        for (let i = 0; i < 3; i++) yield* app.makeBacklink(site, { acquired_at: inMonth(2), category: "local" })

        const first = yield* open(browser, `/sites/${site}`)
        assert.strictEqual(statOf(first.text, "Articles published"), 25)
        assert.strictEqual(statOf(first.text, "Backlinks acquired"), 25)
        assert.strictEqual(statOf(first.text, "Industry backlinks"), 22)
        assert.strictEqual(statOf(first.text, "Local backlinks"), 3)
        assert.deepStrictEqual(articleIds(first.text), published.slice(5).reverse())
        assert.include(first.text, `href="/sites/${site}?page=2#articles"`)
        assert.include(first.text, `href="/sites/${site}?industry_page=2#industry-backlinks"`)
        assert.notInclude(first.text, "local_page=2")

        const second = yield* open(browser, `/sites/${site}?page=2`)
        assert.deepStrictEqual(articleIds(second.text), [...published.slice(0, 5).reverse(), ...[...drafts].reverse()])
        assert.include(second.text, `href="/sites/${site}#articles" rel="prev"`)

        const onlyDrafts = yield* open(browser, `/sites/${site}?status=draft`)
        assert.deepStrictEqual(articleIds(onlyDrafts.text), [...drafts].reverse())
        assert.include(onlyDrafts.text, '<option value="draft" selected>')
        assert.include(onlyDrafts.text, "Articles (3)")

        const backlinks = yield* open(browser, `/sites/${site}?industry_page=2`)
        assert.include(backlinks.text, "Page 2 of 2")
        assert.deepStrictEqual(articleIds(backlinks.text), published.slice(5).reverse())
      })
    )
  })

  describe("the period and the months of GET /sites/:id", () => {
    /** 2 published this month (and a scheduled one dated this month), 1 last month, 1 thirteen months ago. */
    const periodSite = Effect.gen(function* () {
      const { app, browser, accountId, key } = yield* signedInAccount()
      const site = yield* app.makeSite(accountId, { name: "Counted site" })
      yield* app.makeArticle(site, { published_at: inMonth(1) })
      yield* app.makeArticle(site, { published_at: inMonth(2) })
      yield* app.makeArticle(site, { published_at: inMonth(3), status: "scheduled" })
      yield* app.makeArticle(site, { published_at: inMonth(10, 1) })
      yield* app.makeArticle(site, { published_at: inMonth(10, 13) })
      yield* app.makeBacklink(site, { acquired_at: inMonth(1), category: "local" })
      yield* app.makeBacklink(site, { acquired_at: inMonth(5, 1), category: "industry" })
      yield* app.makeBacklink(site, { acquired_at: inMonth(6, 1), category: "local" })
      yield* app.makeBacklink(site, { acquired_at: inMonth(6, 3), category: "industry" })
      return { app, browser, key, site }
    })

    /** The counts the API answers for the same query. */
    const apiCounts = (key: string, site: number, query: string) =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const reply = yield* app.fetch(`/api/v1/sites/${site}/stats?${query}`, { headers: { "x-api-key": key } })
        return ((yield* Effect.promise(() => reply.json())) as { data: Record<string, number> }).data
      })

    const counts = (page: string) => ({
      articles_published: statOf(page, "Articles published"),
      backlinks_acquired: statOf(page, "Backlinks acquired"),
      backlinks_industry: statOf(page, "Industry backlinks"),
      backlinks_local: statOf(page, "Local backlinks")
    })

    it.effect("every period the stats endpoint takes gives the page the same counts as the endpoint", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, key, site } = yield* periodSite
        const threeMonthsAgo = inMonth(1, 3).slice(0, 7)
        for (const [query, heading] of [
          ["", "This month"],
          ["period=this_month", "This month"],
          ["period=last_month", "Last month"],
          ["period=last_30_days", "Last 30 days"],
          [`period=${threeMonthsAgo}`, ""],
          [`from=${inMonth(1, 13).slice(0, 10)}&to=${inMonth(28).slice(0, 10)}`, ""]
        ] as const) {
          const page = yield* open(browser, `/sites/${site}${query === "" ? "" : `?${query}`}`)
          const api = yield* apiCounts(key, site, query)
          assert.deepStrictEqual(
            counts(page.text),
            {
              articles_published: api["articles_published"],
              backlinks_acquired: api["backlinks_acquired"],
              backlinks_industry: api["backlinks_industry"],
              backlinks_local: api["backlinks_local"]
            },
            query
          )
          assert.include(page.text, `${api["from"]} to ${api["to"]}`, query)
          if (heading !== "") assert.match(page.text, new RegExp(`<h2 id="summary">${heading} `), query)
          assert.notInclude(page.text, 'role="alert"', query)
        }
        const thisMonth = yield* open(browser, `/sites/${site}`)
        assert.strictEqual(statOf(thisMonth.text, "Articles published"), 2)
        // Paging and the status filter keep the period.
        const lastMonth = yield* open(browser, `/sites/${site}?period=last_month`)
        assert.include(lastMonth.text, '<input type="hidden" name="period" value="last_month">')
      })
    )

    it.effect("a period the stats endpoint refuses is said in the endpoint's words, with this month's counts", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, site } = yield* periodSite
        for (const [query, message] of [
          ["period=fortnight", "period must be this_month, last_month, last_30_days, YYYY-MM or YYYY-MM-DD."],
          ["from=2026-11-10&to=2026-11-01", "from must not be after to."],
          ["from=2026-11-10", "from and to must be given together."],
          ["period=2026-02-30", "period 2026-02-30 is not a calendar date of years 0001-9999."],
          ["from=2026-02-30&to=2026-03-01", "from: must be a calendar date YYYY-MM-DD in years 0001-9999"]
        ] as const) {
          const page = yield* open(browser, `/sites/${site}?${query}`)
          assert.include(page.text, message.replace(/'/g, "&#39;"), query)
          assert.match(page.text, /<p class="error" role="alert">/, query)
          assert.strictEqual(statOf(page.text, "Articles published"), 2, query)
        }
      })
    )

    it.effect("the charts' tables give twelve months, oldest first, counted by the same rules", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, site } = yield* periodSite
        const page = yield* open(browser, `/sites/${site}`)
        const table = (caption: string) => {
          const found = new RegExp(`<caption>${caption}</caption>[\\s\\S]*?</table>`).exec(page.text)
          assert.isNotNull(found, caption)
          return [...found![0].matchAll(/<tr><th scope="row">([^<]+)<\/th>(.*?)<\/tr>/g)].map(
            ([, month, cells]) => `${month}: ${[...cells!.matchAll(/>(\d+)</g)].map((m) => m[1]).join(" ")}`
          )
        }
        const name = (monthsAgo: number) =>
          new Date(inMonth(15, monthsAgo)).toLocaleString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" })
        const articles = table("Articles published per month")
        assert.strictEqual(articles.length, 12)
        assert.deepStrictEqual(articles.slice(-4), [`${name(3)}: 0`, `${name(2)}: 0`, `${name(1)}: 1`, `${name(0)}: 2`])
        assert.strictEqual(articles[0], `${name(11)}: 0`)
        const backlinks = table("Backlinks acquired per month")
        assert.deepStrictEqual(backlinks.slice(-4), [
          `${name(3)}: 1 0 1`,
          `${name(2)}: 0 0 0`,
          `${name(1)}: 1 1 2`,
          `${name(0)}: 0 1 1`
        ])
        // The drawing is for the eye only: screen readers get the tables.
        assert.match(page.text, /<svg class="chart" viewBox="[^"]+" aria-hidden="true" focusable="false">/)
      })
    )
  })

  describe("GET /activity", () => {
    it.effect("lists the account's own calls and changes, and nothing of another account's attempts", () =>
      Effect.gen(function* () {
        const { app, browser, accountId, key } = yield* signedIn()
        const site = yield* app.makeSite(accountId)
        const article = yield* app.makeArticle(site, { title: "Our own article" })
        const read = (apiKey: string) =>
          Effect.gen(function* () {
            const reply = yield* app.fetch(`/api/v1/articles/${article}`, { headers: { "x-api-key": apiKey } })
            yield* Effect.promise(() => reply.text())
            return reply.status
          })
        assert.strictEqual(yield* read(key), 200)
        const stranger = yield* signedInAccount()
        assert.strictEqual(yield* read(stranger.key), 404)
        yield* readRowsWritten
        yield* TestClock.adjust("1 second")

        const own = yield* open(browser, "/activity")
        const row = rowWith(own.text, `GET /api/v1/articles/${article}`)
        assert.include(row, `<a href="/articles/${article}"><bdi>Our own article</bdi></a>`)
        assert.include(row, ">200<")
        assert.notInclude(own.text, ">404<")
        const perArticle = yield* open(browser, `/articles/${article}/activity`)
        assert.notInclude(perArticle.text, ">404<")
        assert.strictEqual(rowCount(perArticle.text), 1)

        // The stranger's own log shows its refused call, naming the article by number only.
        const theirs = yield* open(stranger.browser, "/activity")
        const refused = rowWith(theirs.text, `GET /api/v1/articles/${article}`)
        assert.include(refused, ">404<")
        assert.include(refused, `Article ${article}`)
        assert.notInclude(theirs.text, "Our own article")
        assert.notInclude(theirs.text, `href="/articles/${article}"`)
      })
    )

    it.effect("filters by origin and pages by 50", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn()
        const sql = yield* SqlClient.SqlClient
        const site = yield* app.makeSite(accountId)
        const article = yield* app.makeArticle(site)
        for (let i = 0; i < 51; i++) {
          yield* sql`insert into audit_log ${sql.insert({
            at: sql`${new Date(Date.now() - 2 * 3_600_000 + i * 60_000).toISOString()}::timestamptz`,
            account_id: accountId,
            origin: i % 2 === 0 ? "API" : "MCP",
            method: "GET",
            path: `/api/v1/sites?call=${i}`,
            tool: i % 2 === 0 ? null : `list_sites_${i}`,
            article_id: i === 50 ? article : null,
            status: 200,
            duration_ms: 3
          })}`.pipe(Effect.orDie)
        }
        const first = yield* open(browser, "/activity")
        assert.strictEqual(rowCount(first.text), 50)
        assert.include(first.text, 'href="/activity?page=2" rel="next"')
        const second = yield* open(browser, "/activity?page=2")
        assert.strictEqual(rowCount(second.text), 1)
        const mcp = yield* open(browser, "/activity?origin=MCP")
        assert.strictEqual(rowCount(mcp.text), 25)
        assert.include(mcp.text, "list_sites_49")
        assert.notInclude(mcp.text, "call=50")
      })
    )
  })

  describe("every page", () => {
    it.effect("has one h1, a label for every field, header cells with scope, and no inline style or script", () =>
      Effect.gen(function* () {
        const { app, browser, accountId } = yield* signedIn()
        const site = yield* app.makeSite(accountId)
        yield* app.makeArticle(site)
        yield* app.makeBacklink(site)
        const article = yield* app.makeArticle(site)
        const [key] = yield* Effect.flatMap(ApiKeys, (keys) => keys.list(accountId))
        for (const path of [
          "/sites",
          `/sites/${site}`,
          `/articles/${article}`,
          `/articles/${article}/activity`,
          "/activity",
          "/connection",
          `/connection/keys/${key!.id}/revoke`
        ]) {
          const { text } = yield* open(browser, path)
          assert.strictEqual(text.match(/<h1[ >]/g)?.length, 1, path)
          assert.match(text, /^<!doctype html>\n<html lang="en">/)
          assert.include(text, '<meta name="viewport" content="width=device-width, initial-scale=1">')
          for (const [field, id] of text.matchAll(/<(?:input|select)(?![^>]*type="hidden")[^>]*\bid="([^"]+)"/g)) {
            assert.include(text, `<label for="${id}">`, `${path}: ${field}`)
          }
          assert.notMatch(text, /<(?:input|select)(?![^>]*type="hidden")(?![^>]*\bid=)[^>]*>/, path)
          assert.notMatch(text, /<th(?:\s(?![^>]*scope=)[^>]*)?>/, path)
          if (text.includes("<table")) assert.match(text, /<th scope=/, path)
          assert.notMatch(text, /<style|\sstyle=|<script(?![^>]*\ssrc=)/, path)
        }
      })
    )

    it.effect("the icon is linked from every page and answers at /favicon.ico too", () =>
      Effect.gen(function* () {
        const { browser } = yield* signedIn()
        const { text } = yield* open(browser, "/sites")
        const href = /<link rel="icon" href="(\/assets\/icon\.svg\?v=[0-9a-f]+)" type="image\/svg\+xml">/.exec(
          text
        )?.[1]
        assert.isString(href)
        for (const path of [href!, "/favicon.ico"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 200, path)
          assert.strictEqual(reply.headers.get("content-type"), "image/svg+xml")
          assert.match(reply.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
        }
      })
    )

    it.effect("the stylesheet and the script are served from /assets with immutable caching", () =>
      Effect.gen(function* () {
        const { browser } = yield* signedIn()
        const { text } = yield* open(browser, "/connection")
        const css = /<link rel="stylesheet" href="(\/assets\/site\.css\?v=[0-9a-f]+)">/.exec(text)?.[1]
        const js = /<script src="(\/assets\/copy\.js\?v=[0-9a-f]+)" defer>/.exec(text)?.[1]
        for (const [path, type] of [
          [css, "text/css"],
          [js, "text/javascript"]
        ] as const) {
          assert.isString(path)
          const reply = yield* browser.get(path!)
          assert.strictEqual(reply.status, 200)
          assert.match(reply.headers.get("content-type") ?? "", new RegExp(`^${type}`))
          assert.include(reply.headers.get("cache-control") ?? "", "immutable")
        }
      })
    )
  })
})
