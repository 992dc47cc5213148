import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { insertCheck, setHealth } from "./support/LinkHealth.js"
import { makeBrowser } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { assertPageHeaders, inMonth, open, rowCount, rowWith, signedInAccount } from "./support/WebPages.js"

/** Under `layer(...)` the server runs on the test clock, which starts at the epoch: "this month" needs the real now. */
const startClock = TestClock.setTime(Date.now())

/** A signed-in user's website with three backlinks: one lost (404), one live with nofollow on a noindex page, one new. */
const healthSite = Effect.gen(function* () {
  yield* startClock
  const { app, browser, accountId } = yield* signedInAccount()
  const site = yield* app.makeSite(accountId, { name: "Health site" })
  const lost = yield* app.makeBacklink(site, {
    acquired_at: inMonth(3),
    source_domain: "gone.example.org",
    category: "industry"
  })
  yield* setHealth(lost, { status: "lost", lost_reason: "page_not_found", last_checked_at: "2026-11-20T08:15:00Z" })
  const live = yield* app.makeBacklink(site, {
    acquired_at: inMonth(2),
    source_domain: "kept.example.org",
    category: "local"
  })
  yield* setHealth(live, {
    status: "live",
    rel: ["nofollow", "ugc"],
    indexable: false,
    last_checked_at: "2026-11-21T09:00:00Z"
  })
  const fresh = yield* app.makeBacklink(site, {
    acquired_at: inMonth(1),
    source_domain: "new.example.org",
    status: "pending",
    category: "industry"
  })
  return { app, browser, accountId, site, lost, live, fresh }
})

/** The names of the backlinks a page lists, by the domains that link to their pages. */
const listedDomains = (page: string) =>
  [...page.matchAll(/<a href="\/backlinks\/\d+"><bdi>([^<]+)<\/bdi><\/a>/g)].map((m) => m[1])

layer(TestServerLive)("web pages: backlink health", (it) => {
  describe("the website page", () => {
    it.effect(
      "each backlink shows its status as a badge with a shape and a word, why it is lost, rel, not indexable and when it was checked, and links to its page",
      () =>
        Effect.gen(function* () {
          const { browser, site, lost, live, fresh } = yield* healthSite
          const page = yield* open(browser, `/sites/${site}`)
          const lostRow = rowWith(page.text, `/backlinks/${lost}"`)
          assert.match(
            lostRow,
            /<span class="badge health lost"><svg class="icon"[^>]*aria-hidden="true"[^>]*>.*?<\/svg>Lost<\/span>/
          )
          assert.include(lostRow, "Page not found (404/410)")
          assert.include(lostRow, '<time datetime="2026-11-20T08:15:00Z">2026-11-20')
          const liveRow = rowWith(page.text, `/backlinks/${live}"`)
          assert.match(liveRow, /<span class="badge health live"><svg class="icon"[^>]*>.*?<\/svg>Live<\/span>/)
          assert.include(liveRow, '<span class="tag">nofollow</span><span class="tag">ugc</span>')
          assert.include(liveRow, "not indexable")
          assert.notInclude(liveRow, "Page not found")
          const freshRow = rowWith(page.text, `/backlinks/${fresh}"`)
          assert.match(freshRow, /<span class="badge health pending"><svg class="icon"[^>]*>.*?<\/svg>Pending<\/span>/)
          assert.include(freshRow, "Not checked yet")
          assert.notInclude(freshRow, "not indexable")
          // The site-wide figures, as the stats count them.
          assert.include(page.text.replace(/\s+/g, " "), "<strong>1</strong> live and <strong>1</strong> lost, of all")
          assert.include(page.text, 'href="/link-checker"')
        })
    )

    it.effect(
      "the lost filter lists only lost backlinks in each category, keeps the period and the articles' filter, and its pages keep it",
      () =>
        Effect.gen(function* () {
          const { app, browser, site } = yield* healthSite
          // 21 more lost industry backlinks: two pages of them.
          for (let i = 0; i < 21; i++) {
            const id = yield* app.makeBacklink(site, { acquired_at: inMonth(1), source_domain: `lost-${i}.example` })
            yield* setHealth(id, { status: "lost", lost_reason: "link_removed" })
          }
          const all = yield* open(browser, `/sites/${site}?period=last_month&status=draft`)
          assert.include(
            all.text,
            '<nav class="filters" aria-label="Show backlinks">\n<strong aria-current="true">All</strong>'
          )
          assert.include(
            all.text,
            `<a href="/sites/${site}?period=last_month&amp;status=draft&amp;backlink_status=lost#backlinks">Lost</a>`
          )
          assert.include(all.text, "Industry backlinks (23)")

          const lostOnly = yield* open(browser, `/sites/${site}?period=last_month&status=draft&backlink_status=lost`)
          assert.include(lostOnly.text, '<strong aria-current="true">Lost</strong>')
          assert.include(lostOnly.text, "Industry backlinks, lost only (22)")
          assert.include(lostOnly.text, "Local backlinks, lost only (0)")
          assert.include(lostOnly.text, 'aria-label="Industry backlinks, lost only, newest first"')
          const shown = listedDomains(lostOnly.text)
          assert.strictEqual(shown.length, 20)
          assert.notInclude(shown, "new.example.org")
          assert.notInclude(shown, "kept.example.org")
          // Paging keeps the filter, the period and the articles' filter.
          const next = `/sites/${site}?period=last_month&amp;status=draft&amp;backlink_status=lost&amp;industry_page=2#industry-backlinks`
          assert.include(lostOnly.text, `href="${next}"`)
          const second = yield* open(browser, next.replace(/&amp;/g, "&"))
          assert.deepStrictEqual(listedDomains(second.text).length, 2)
          assert.include(second.text, "Page 2 of 2")
          // The other filters keep it: the articles' status form and the period links.
          assert.include(lostOnly.text, '<input type="hidden" name="backlink_status" value="lost">')
          assert.include(
            lostOnly.text,
            `href="/sites/${site}?period=last_month&amp;status=draft&amp;backlink_status=lost#summary"`
          )

          const liveOnly = yield* open(browser, `/sites/${site}?backlink_status=live`)
          assert.deepStrictEqual(listedDomains(liveOnly.text), ["kept.example.org"])
          const pendingOnly = yield* open(browser, `/sites/${site}?backlink_status=pending`)
          assert.deepStrictEqual(listedDomains(pendingOnly.text), ["new.example.org"])
          // An unknown value is no filter.
          const unknown = yield* open(browser, `/sites/${site}?backlink_status=gone`)
          // A page of the 23 industry ones and the local one.
          assert.strictEqual(listedDomains(unknown.text).length, 20 + 1)
        })
    )

    it.effect("the health chart's table gives each month's backlinks live, lost and pending now", () =>
      Effect.gen(function* () {
        const { app, browser, site } = yield* healthSite
        const older = yield* app.makeBacklink(site, { acquired_at: inMonth(5, 2), category: "local" })
        yield* setHealth(older, { status: "lost", lost_reason: "unreachable" })
        yield* app.makeBacklink(site, { acquired_at: inMonth(6, 2), category: "local" })
        const page = yield* open(browser, `/sites/${site}`)
        const table = /<caption>Backlinks acquired per month, live and lost now<\/caption>([\s\S]*?)<\/table>/.exec(
          page.text
        )
        assert.isNotNull(table)
        assert.include(
          table![1]!,
          '<th scope="col" class="num">Live</th><th scope="col" class="num">Lost</th><th scope="col" class="num">Pending</th><th scope="col" class="num">Total</th>'
        )
        const rows = [...table![1]!.matchAll(/<tr><th scope="row">[^<]+<\/th>(.*?)<\/tr>/g)].map((m) =>
          [...m[1]!.matchAll(/>(\d+)</g)].map((n) => Number(n[1]))
        )
        assert.strictEqual(rows.length, 12)
        // This month: one live, one lost, one pending; two months ago: one lost, one live (the fixture's default).
        assert.deepStrictEqual(rows[11], [1, 1, 1, 3])
        assert.deepStrictEqual(rows[9], [1, 1, 0, 2])
        assert.deepStrictEqual(rows[10], [0, 0, 0, 0])
        // Lost bars are striped, not only coloured.
        assert.match(page.text, /<rect class="lost hatched" fill="url\(#chart-health-lost-hatch\)"/)
      })
    )
  })

  describe("a backlink's page", () => {
    it.effect("shows the backlink, its health and its last 20 checks newest first, each in words", () =>
      Effect.gen(function* () {
        const { browser, site, lost } = yield* healthSite
        // 25 checks an hour apart, oldest first: only the last 20 are shown.
        for (let n = 0; n < 23; n++) {
          yield* insertCheck(lost, {
            checked_at: new Date(Date.UTC(2026, 10, 19, n)).toISOString(),
            outcome: "found",
            http_status: 200,
            final_url: `https://gone.example.org/${n}`,
            anchor_text: `anchor ${n}`,
            indexable: true
          })
        }
        yield* insertCheck(lost, {
          checked_at: "2026-11-20T07:00:00Z",
          outcome: "page_not_found",
          http_status: 404,
          final_url: "https://gone.example.org/moved",
          duration_ms: 311
        })
        yield* insertCheck(lost, {
          checked_at: "2026-11-20T08:15:00Z",
          outcome: "unreachable",
          error: "the connection was refused",
          duration_ms: 12
        })
        const page = yield* open(browser, `/backlinks/${lost}`)
        assert.include(page.text, "<h1>Backlink from <bdi>gone.example.org</bdi></h1>")
        assert.include(page.text, `<a href="/sites/${site}#backlinks">Back to the website</a>`)
        assert.match(page.text, /<dt>Status<\/dt><dd><span class="badge health lost">.*?Lost<\/span><\/dd>/)
        assert.include(page.text, "Page not found (404/410)")
        assert.include(page.text, 'aria-label="Last 20 checks, newest first"')
        assert.strictEqual(rowCount(page.text), 20)
        const times = [...page.text.matchAll(/<tr><th scope="row"><time datetime="([^"]+)"/g)].map((m) => m[1])
        assert.strictEqual(times[0], "2026-11-20T08:15:00Z")
        assert.strictEqual(times[1], "2026-11-20T07:00:00Z")
        assert.strictEqual(times[19], new Date(Date.UTC(2026, 10, 19, 5)).toISOString().replace(".000Z", "Z"))
        const refused = rowWith(page.text, "2026-11-20T08:15:00Z")
        assert.include(refused, "Unreachable")
        assert.include(refused, "the connection was refused")
        assert.include(refused, "12\u00a0ms")
        const notFound = rowWith(page.text, "2026-11-20T07:00:00Z")
        assert.include(notFound, "Page not found (404/410)")
        assert.include(notFound, '<td data-label="HTTP status">404</td>')
        assert.include(notFound, "https://gone.example.org/moved")
        const found = rowWith(page.text, "2026-11-19T22:00:00Z")
        assert.include(found, "Link found")
        assert.include(found, "anchor 22")
        assert.include(found, '<td data-label="Indexable">Yes</td>')
      })
    )

    it.effect(
      "the final address is shown only when it differs from the source page; a 304 and an article read are said",
      () =>
        Effect.gen(function* () {
          const { app, browser, site } = yield* healthSite
          const id = yield* app.makeBacklink(site, { source_url: "https://same.example.org/page" })
          yield* insertCheck(id, {
            checked_at: "2026-11-21T10:00:00Z",
            outcome: "found",
            http_status: 304,
            not_modified: true,
            final_url: "https://same.example.org/page",
            rel: ["sponsored"]
          })
          yield* insertCheck(id, { checked_at: "2026-11-22T10:00:00Z", outcome: "found", fetched: false })
          const page = yield* open(browser, `/backlinks/${id}`)
          const conditional = rowWith(page.text, "2026-11-21T10:00:00Z")
          assert.include(conditional, '304 <span class="muted">(not modified)</span>')
          assert.notInclude(conditional, "https://same.example.org/page")
          assert.include(conditional, '<span class="tag">sponsored</span>')
          assert.include(rowWith(page.text, "2026-11-22T10:00:00Z"), "Not fetched: an article held by this service")
        })
    )

    it.effect("a backlink not checked yet says so", () =>
      Effect.gen(function* () {
        const { browser, fresh } = yield* healthSite
        const page = yield* open(browser, `/backlinks/${fresh}`)
        assert.include(page.text, "<dt>Last checked</dt><dd>Not checked yet</dd>")
        assert.include(page.text, "No check has been made yet.")
      })
    )

    it.effect("another account's backlink, a missing one and an address that names none are 404 pages", () =>
      Effect.gen(function* () {
        const { app, browser } = yield* healthSite
        const other = yield* signedInAccount()
        const foreignSite = yield* app.makeSite(other.accountId, { name: "Not yours" })
        const foreign = yield* app.makeBacklink(foreignSite, { source_domain: "secret.example.org" })
        for (const path of [`/backlinks/${foreign}`, "/backlinks/999999999", "/backlinks/abc", "/backlinks/0"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 404, path)
          assertPageHeaders(reply)
          assert.include(reply.text, "There is no such backlink on your account.")
          assert.notInclude(reply.text, "secret.example.org")
        }
        // Its owner sees it.
        assert.include((yield* open(other.browser, `/backlinks/${foreign}`)).text, "secret.example.org")
        // Signed out: to sign in, and back.
        const reply = yield* makeBrowser(app.baseUrl).get(`/backlinks/${foreign}`)
        assert.strictEqual(reply.status, 303)
        assert.strictEqual(reply.location, `/signin?return_to=${encodeURIComponent(`/backlinks/${foreign}`)}`)
      })
    )
  })

  describe("the link checker's page", () => {
    it.effect(
      "is public and tells a website owner what the checker fetches, how often, how politely and whom to tell",
      () =>
        Effect.gen(function* () {
          // Public: a browser that never signed in.
          const reply = yield* open(makeBrowser((yield* TestApp).baseUrl), "/link-checker")
          const text = reply.text.replace(/\s+/g, " ")
          assert.include(text, "<h1>The link checker</h1>")
          assert.match(text, /content-backlink-service-link-checker\/1\.0 \(\+http[^)]*\/link-checker\)/)
          for (const said of [
            "One page per backlink",
            "It follows no other link",
            "A backlink not yet confirmed: every day.",
            "A link found on its page: every 7 days at most.",
            "every 14 days, in case it comes back",
            "1 hour after a 404 or 410, 12 hours after no answer",
            "At most one request at a time to your host, and at least 2 seconds between two of them",
            "given up after 15 seconds; at most 2 MiB",
            "At most 5 redirects",
            "<code>If-None-Match</code>",
            "The page itself is not stored",
            "contact the operator of this service"
          ]) {
            assert.include(text, said)
          }
        })
    )
  })
})
