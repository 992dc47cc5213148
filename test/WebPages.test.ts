import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { makeBrowser } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import {
  articleIds,
  assertPageHeaders,
  inMonth,
  numbersIn,
  open,
  rowWith,
  signedInAccount,
  statOf
} from "./support/WebPages.js"

/** Under `layer(...)` the server runs on the test clock, which starts at the epoch: "this month" needs the real now. */
const startClock = TestClock.setTime(Date.now())

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
        yield* startClock
        const { browser } = yield* signedInAccount()
        const page = yield* open(browser, "/connection")
        assert.include(page.text, "<h1>Site connection</h1>")
      })
    )
  })

  describe("GET /sites", () => {
    it.effect("lists only the account's websites, with articles published and backlinks acquired this month", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount()
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
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount({ admin: true })
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
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount()
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
        yield* startClock
        const { app, browser } = yield* signedInAccount()
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
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount()
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

  describe("every page", () => {
    it.effect("has one h1, a label for every field, header cells with scope, and no inline style or script", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount()
        const site = yield* app.makeSite(accountId)
        yield* app.makeArticle(site)
        yield* app.makeBacklink(site)
        for (const path of ["/sites", `/sites/${site}`, "/connection"]) {
          const { text } = yield* open(browser, path)
          assert.strictEqual(text.match(/<h1[ >]/g)?.length, 1, path)
          assert.match(text, /^<!doctype html>\n<html lang="en">/)
          assert.include(text, '<meta name="viewport" content="width=device-width, initial-scale=1">')
          for (const [field, id] of text.matchAll(/<(?:input|select)(?![^>]*type="hidden")[^>]*\bid="([^"]+)"/g)) {
            assert.include(text, `<label for="${id}">`, `${path}: ${field}`)
          }
          assert.notMatch(text, /<(?:input|select)(?![^>]*type="hidden")(?![^>]*\bid=)[^>]*>/, path)
          assert.notMatch(text, /<th(?:\s(?![^>]*scope=)[^>]*)?>/, path)
          assert.match(text, /<th scope=/, path)
          assert.notMatch(text, /<style|\sstyle=|<script(?![^>]*\ssrc=)/, path)
        }
      })
    )

    it.effect("the stylesheet and the script are served from /assets with immutable caching", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser } = yield* signedInAccount()
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
