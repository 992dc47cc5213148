import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { follow, signIn, startClock, text, visitor } from "./support/BrowserFlows.js"
import { checkPage, compactRowLayout, PHONE, SCREENS, tabThrough } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"
import { inMonth } from "./support/WebPages.js"

/** The `YYYY-MM` of the month `monthsAgo` months before this one, and its first day. */
const monthOf = (monthsAgo: number) => inMonth(1, monthsAgo).slice(0, 7)

/** The summary numbers of the website page, by their labels. */
/** The website page's four counts, as `summary` reads them. */
const counts = (articles: number, industry: number, local: number) => ({
  "Articles published": articles,
  "Backlinks acquired": industry + local,
  "Industry backlinks": industry,
  "Local backlinks": local
})

const summary = (page: Page) =>
  inBrowser(() =>
    page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll("dl.stats div")].map((item) => [
          item.querySelector("dt")?.textContent ?? "",
          Number(item.querySelector("dd")?.textContent)
        ])
      )
    )
  )

/** The rows of a chart's table for screen readers, as `month: values`. */
const chartRows = (page: Page, caption: string) =>
  inBrowser(() =>
    page
      .getByRole("table", { name: caption })
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "").join(" | ")))
  )

const monthName = (monthsAgo: number) =>
  new Date(`${monthOf(monthsAgo)}-15T00:00:00Z`).toLocaleString("en-GB", {
    month: "long",
    year: "numeric",
    timeZone: "UTC"
  })

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: sign-in and websites", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(`${at}: sign-in by e-mail and password, by keyboard alone, lands on the websites list`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor(screen)
          yield* inBrowser(() => page.goto("/signin"))
          assert.include(yield* text(page, "header"), "Content and Backlink Service")
          yield* checkPage(page, "signin")
          // Tab reaches the fields and the button in order, each with a visible focus ring; Enter signs in.
          assert.deepStrictEqual(yield* tabThrough(page, 3), ["E-mail", "Password", "Sign in"])
          yield* inBrowser(() => page.getByLabel("E-mail").fill(email))
          yield* inBrowser(() => page.getByLabel("Password").fill("correct horse battery staple"))
          yield* follow(page, () => page.getByLabel("Password").press("Enter"))
          assert.strictEqual(new URL(page.url()).pathname, "/sites")
          assert.strictEqual(yield* text(page, "h1"), "Websites")
          assert.include(yield* text(page, "header.site"), email)
          yield* checkPage(page, "websites")

          // Reached directly while signed in, /signin leads on to the websites.
          yield* inBrowser(() => page.goto("/signin"))
          yield* checkPage(page, "signin-signed-in")
          yield* follow(page, () => page.getByRole("link", { name: "Go to your websites" }).click())
          assert.strictEqual(new URL(page.url()).pathname, "/sites")

          yield* follow(page, () => page.getByRole("button", { name: "Sign out" }).click())
          assert.strictEqual(new URL(page.url()).pathname, "/signin")
          yield* checkPage(page, "signed-out")
        })
      )

      it.scoped(`${at}: the website page charts twelve months and its period picker drives the counts`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, page, email, siteId } = yield* visitor(screen)
          for (const day of [2, 3, 4]) yield* app.makeArticle(siteId, { published_at: inMonth(day) })
          for (const day of [5, 6]) yield* app.makeArticle(siteId, { published_at: inMonth(day, 1) })
          // Scheduled with a date: not published, so not counted (CONTRACT.md "Stats").
          yield* app.makeArticle(siteId, { status: "scheduled", published_at: inMonth(20, 1) })
          yield* app.makeArticle(siteId, { published_at: inMonth(10, 4) })
          yield* app.makeBacklink(siteId, { acquired_at: inMonth(2), category: "industry" })
          yield* app.makeBacklink(siteId, { acquired_at: inMonth(3), category: "industry" })
          yield* app.makeBacklink(siteId, { acquired_at: inMonth(3), category: "local" })
          for (const day of [7, 8]) yield* app.makeBacklink(siteId, { acquired_at: inMonth(day, 1), category: "local" })
          yield* app.makeBacklink(siteId, { acquired_at: inMonth(12, 3), category: "industry" })

          yield* signIn(page, email)
          yield* follow(page, () => page.getByRole("link", { name: "Garden Tools Weekly" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Garden Tools Weekly")
          assert.deepStrictEqual(yield* summary(page), counts(3, 2, 1))
          // The charts' figures, for screen readers: twelve months, oldest first, ending with this one.
          const articles = yield* chartRows(page, "Articles published per month")
          assert.strictEqual(articles.length, 12)
          assert.strictEqual(articles[11], `${monthName(0)} | 3`)
          assert.strictEqual(articles[10], `${monthName(1)} | 2`)
          assert.strictEqual(articles[7], `${monthName(4)} | 1`)
          const backlinks = yield* chartRows(page, "Backlinks acquired per month")
          assert.strictEqual(backlinks[11], `${monthName(0)} | 2 | 1 | 3`)
          assert.strictEqual(backlinks[10], `${monthName(1)} | 0 | 2 | 2`)
          assert.strictEqual(backlinks[8], `${monthName(3)} | 1 | 0 | 1`)
          const bars = "#chart-articles-caption ~ svg rect, #chart-backlinks-caption ~ svg rect"
          assert.strictEqual(yield* inBrowser(() => page.locator(bars).count()), 3 + 4)
          yield* checkPage(page, "website")

          yield* follow(page, () => page.getByRole("link", { name: "Last month" }).click())
          assert.include(yield* text(page, "#summary"), "Last month")
          assert.deepStrictEqual(yield* summary(page), counts(2, 0, 2))

          yield* inBrowser(() => page.getByLabel("A month").fill(monthOf(3)))
          yield* follow(page, () => page.getByRole("button", { name: "Show month" }).click())
          assert.include(yield* text(page, "#summary"), monthName(3))
          assert.strictEqual((yield* summary(page))["Industry backlinks"], 1)
          // A month picker, whose value is the month as the address writes it (ISO), whatever the browser's locale.
          assert.strictEqual(yield* inBrowser(() => page.getByLabel("A month").inputValue()), monthOf(3))
          assert.strictEqual(
            yield* inBrowser(() => page.getByLabel("A month").evaluate((input) => (input as HTMLInputElement).type)),
            "month"
          )

          yield* inBrowser(() => page.getByLabel(/^From/).fill(`${monthOf(4)}-01`))
          yield* inBrowser(() => page.getByLabel(/^To/).fill(inMonth(28).slice(0, 10)))
          yield* follow(page, () => page.getByRole("button", { name: "Show range" }).click())
          // Date pickers, whose values are the days as the address writes them (YYYY-MM-DD), whatever the locale.
          assert.strictEqual(yield* inBrowser(() => page.getByLabel(/^From/).inputValue()), `${monthOf(4)}-01`)
          assert.strictEqual(
            yield* inBrowser(() => page.getByLabel(/^From/).evaluate((input) => (input as HTMLInputElement).type)),
            "date"
          )
          assert.deepStrictEqual(yield* summary(page), counts(6, 3, 3))
          yield* checkPage(page, "website-range")

          // A range the stats refuse is said, and this month's counts are shown instead.
          yield* inBrowser(() => page.goto(`/sites/${siteId}?from=${monthOf(0)}-10&to=${monthOf(0)}-01`))
          assert.include(yield* text(page, "[role=alert]"), "from must not be after to.")
          assert.strictEqual((yield* summary(page))["Articles published"], 3)
        })
      )

      it.scoped(`${at}: the website page is usable by keyboard, in the dark theme too`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, page, email, siteId } = yield* visitor(screen)
          yield* app.makeArticle(siteId, { title: "Winter pruning", published_at: inMonth(2) })
          yield* app.makeBacklink(siteId, { acquired_at: inMonth(2), category: "local" })
          yield* signIn(page, email, `/sites/${siteId}`)
          const order = yield* tabThrough(page, 11)
          assert.deepStrictEqual(order.slice(0, 5), [
            "Skip to content",
            "Content and Backlink Service",
            "Websites",
            "Activity",
            "Site connection"
          ])
          assert.include(order, "Sign out")
          assert.include(order, "Last month")
          // Enter on a focused period link follows it.
          yield* inBrowser(() => page.getByRole("link", { name: "Last month" }).focus())
          yield* follow(page, () => page.keyboard.press("Enter"))
          assert.include(new URL(page.url()).search, "period=last_month")

          yield* inBrowser(() => page.emulateMedia({ colorScheme: "dark" }))
          yield* inBrowser(() => page.goto(`/sites/${siteId}`))
          yield* checkPage(page, "website-dark")
        })
      )

      it.scoped(
        `${at}: a missing page says so with the navigation, an unknown address and a form's address are pages, and the icon is served`,
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { app, page, email } = yield* visitor(screen)
            yield* signIn(page, email)
            yield* inBrowser(() => page.goto("/sites/999999999"))
            assert.strictEqual(yield* text(page, "h1"), "Not found")
            yield* checkPage(page, "not-found")
            // An address that names nothing, and a form's address opened directly, are pages as accessible as the rest.
            for (const [path, heading] of [
              ["/no-such-address", "Page not found"],
              ["/signout", "Cannot be opened this way"]
            ] as const) {
              yield* inBrowser(() => page.goto(path))
              assert.strictEqual(yield* text(page, "h1"), heading)
              yield* checkPage(page, path.slice(1))
            }
            const icon = yield* app.fetch("/favicon.ico")
            assert.strictEqual(icon.status, 200)
            assert.strictEqual(icon.headers.get("content-type"), "image/svg+xml")
            assert.include(yield* Effect.promise(() => icon.text()), "<svg")
            const linked = yield* inBrowser(() => page.locator('link[rel="icon"]').getAttribute("href"))
            assert.strictEqual((yield* app.fetch(linked!)).status, 200)
          })
      )
    }

    it.scoped(
      `at ${PHONE.width} px: the website page lists articles and backlinks as compact rows, every value still named`,
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, page, email, siteId } = yield* visitor(PHONE)
          for (let n = 1; n <= 20; n++) {
            yield* app.makeArticle(siteId, {
              title: `How to sharpen garden tool number ${n}`,
              published_at: inMonth(1 + (n % 5)),
              word_count: 800 + n
            })
            yield* app.makeBacklink(siteId, {
              acquired_at: inMonth(1 + (n % 5)),
              source_domain: `www.a-rather-long-garden-directory-${n}.example`,
              anchor_text: "garden tools",
              anchor_type: "exact_match"
            })
          }
          yield* signIn(page, email, `/sites/${siteId}`)
          const rows = (table: string) => page.getByRole("region", { name: table }).locator("tbody tr")
          const layoutOf = (table: string) => compactRowLayout(rows(table))
          const articles = yield* layoutOf("Articles, newest first")
          assert.strictEqual(articles.length, 20)
          for (const row of articles) {
            // The name with its status beside it, then the date and the word count side by side on one line.
            assert.deepStrictEqual(row, { badgeBesideName: true, valuesBelow: true, lines: 1, fitsIn: true })
          }
          const backlinks = yield* layoutOf("Industry backlinks, newest first")
          assert.strictEqual(backlinks.length, 20)
          for (const row of backlinks) {
            assert.isTrue(row.badgeBesideName && row.valuesBelow && row.fitsIn, JSON.stringify(row))
          }
          // Every value is named for screen readers, the status whose name is not shown too.
          const first = yield* inBrowser(() => rows("Articles, newest first").first().ariaSnapshot())
          for (const label of ["Status", "Published", "Words"]) assert.include(first, label)
          const link = yield* inBrowser(() => rows("Industry backlinks, newest first").first().ariaSnapshot())
          for (const label of ["Anchor text", "Anchor type", "Status", "Acquired"]) assert.include(link, label)
          yield* checkPage(page, "website-compact")
        })
    )

    it.scoped(
      `at ${PHONE.width} px: the website page's search finds by the text, shows the excerpt and says a refusal`,
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, page, email, siteId } = yield* visitor(PHONE)
          yield* app.makeArticle(siteId, {
            title: "Winter care",
            body: "<p>Oil the secateurs before storing them.</p>"
          })
          yield* app.makeArticle(siteId, { title: "Spring care", body: "<p>Sharpen the spade.</p>" })
          yield* signIn(page, email, `/sites/${siteId}`)
          const search = page.getByRole("search", { name: "Articles" })
          yield* inBrowser(() => search.getByLabel("Search the articles").fill("secateurs"))
          yield* follow(page, () => search.getByRole("button", { name: "Search" }).click())
          assert.include(yield* text(page, "[role=status]"), "1 article found for “secateurs”")
          assert.include(yield* text(page, ".match"), "Oil the secateurs before storing them.")
          yield* checkPage(page, "website-search")

          // Over the bound (the box itself stops typing at 200): the list's refusal, said beside the box.
          yield* inBrowser(() => page.goto(`/sites/${siteId}?q=${"b".repeat(201)}`))
          assert.include(yield* text(page, "#article-search-error"), "q: must be at most 200 characters")
          yield* checkPage(page, "website-search-refused")
          yield* follow(page, () => page.getByRole("link", { name: "Winter care" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Winter care")
        })
    )
  })
})
