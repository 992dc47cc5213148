import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { request } from "./support/Http.js"
import { TestServerLive } from "./support/TestServer.js"
import { articleIds, assertPageHeaders, open, signedInAccount } from "./support/WebPages.js"

/** A new account's user signed in, with a website in English holding an article for each of `bodies`. */
const websiteWith = (bodies: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.now())
    const signedIn = yield* signedInAccount()
    const siteId = yield* signedIn.app.makeSite(signedIn.accountId, { name: "Heating news", language: "en" })
    const ids: Array<number> = []
    for (const body of bodies) ids.push(yield* signedIn.app.makeArticle(siteId, { body }))
    return { ...signedIn, siteId, ids }
  })

/** The website page with `q` typed in its search box (and more of the address). */
const searchPath = (siteId: SiteId, q: string, more = "") => `/sites/${siteId}?q=${encodeURIComponent(q)}${more}`

/** The value the search box holds on `page`. */
const boxValue = (page: string) => /<input type="search"[^>]* value="([^"]*)"/.exec(page)?.[1]

layer(TestServerLive)("web pages: the website page's article search", (it) => {
  describe("GET /sites/:id?q=", () => {
    it.effect("finds by the body's text, not by a link's address, and shows each hit's excerpt escaped", () =>
      Effect.gen(function* () {
        const { browser, siteId, ids } = yield* websiteWith([
          '<p>Our boilers &amp; "radiators" are serviced yearly, 1 &lt; 2.</p>',
          '<p>See <a href="https://boilers.example/">our partner</a> for parts.</p>',
          "<p>Nothing about heating here.</p>"
        ])
        const page = yield* open(browser, searchPath(siteId, "boilers"))
        assert.deepStrictEqual(articleIds(page.text), [ids[0]])
        assert.include(page.text, '<form method="get" action="/sites/')
        assert.match(page.text, /<form [^>]*role="search" aria-label="Articles"/)
        assert.include(page.text, '<label for="article-search">')
        assert.strictEqual(boxValue(page.text), "boilers")
        assert.include(page.text, "1 article found for “<bdi>boilers</bdi>”")
        assert.include(page.text, `<a href="/sites/${siteId}#articles">Clear search</a>`)
        // The excerpt is the body's text, escaped.
        assert.include(
          page.text,
          '<span class="match"><bdi>Our boilers &amp; &quot;radiators&quot; are serviced yearly, 1 &lt; 2.'
        )
        // Without a search: every article, no excerpt, no count of hits.
        const all = yield* open(browser, `/sites/${siteId}`)
        assert.strictEqual(articleIds(all.text).length, 3)
        assert.notInclude(all.text, 'class="match"')
        assert.notInclude(all.text, "Clear search")
        // An empty box is no search.
        assert.strictEqual(articleIds((yield* open(browser, searchPath(siteId, "  "))).text).length, 3)
      })
    )

    it.effect("pages and the period keep the search, and the status filter and the search keep each other", () =>
      Effect.gen(function* () {
        const { browser, siteId } = yield* websiteWith(
          Array.from({ length: 25 }, (_, i) => `<p>Boiler service number ${i}.</p>`)
        )
        const first = yield* open(browser, searchPath(siteId, "boiler service", "&status=published"))
        assert.strictEqual(articleIds(first.text).length, 20)
        assert.include(first.text, "25 articles found")
        const next = `/sites/${siteId}?status=published&amp;q=boiler+service&amp;page=2#articles`
        assert.include(first.text, `href="${next}" rel="next"`)
        // The status filter carries the search; the search form carries the status; neither carries the page.
        assert.include(first.text, '<input type="hidden" name="q" value="boiler service">')
        assert.include(first.text, '<input type="hidden" name="status" value="published">')
        assert.notInclude(first.text, 'name="page"')
        // So do the period's links and forms.
        assert.include(
          first.text,
          `href="/sites/${siteId}?period=last_month&amp;status=published&amp;q=boiler+service#summary"`
        )
        const second = yield* open(browser, next.replaceAll("&amp;", "&"))
        assert.strictEqual(articleIds(second.text).length, 5)
        assert.include(second.text, `href="/sites/${siteId}?status=published&amp;q=boiler+service#articles" rel="prev"`)
        assert.strictEqual(boxValue(second.text), "boiler service")
      })
    )

    it.effect("a search the list refuses is a 422 page in the list's words, the box keeping what was typed", () =>
      Effect.gen(function* () {
        const { app, browser, siteId, accountId } = yield* websiteWith(["<p>Boilers.</p>"])
        const key = yield* app.makeKey(accountId)
        for (const [typed, shown] of [
          ["b".repeat(201), "b".repeat(201)],
          ["boilers\u001b[2J", "boilers⟨U+001B⟩[2J"],
          ["boilers\u0000", "boilers⟨U+0000⟩"]
        ] as const) {
          const api = yield* request("GET", `/api/v1/sites/${siteId}/articles?q=${encodeURIComponent(typed)}`, { key })
          assert.strictEqual(api.status, 422)
          const message = (api.body as { message: string }).message
          const page = yield* browser.get(searchPath(siteId, typed))
          assert.strictEqual(page.status, 422, page.text)
          assertPageHeaders(page)
          assert.include(page.text, `That search cannot be run: ${message} All articles are listed instead.`)
          assert.strictEqual(boxValue(page.text), shown)
          assert.include(page.text, 'aria-invalid="true" aria-describedby="article-search-error"')
          assert.strictEqual(articleIds(page.text).length, 1)
          assert.notInclude(page.text, "Clear search")
        }
      })
    )
  })
})
