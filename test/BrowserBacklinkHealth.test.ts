import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { follow, signIn, startClock, text, visitor } from "./support/BrowserFlows.js"
import { insertCheck, setHealth } from "./support/LinkHealth.js"
import { checkPage, compactRowLayout, PHONE, SCREENS, shotsIn, tabThrough } from "./support/PageChecks.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { inMonth } from "./support/WebPages.js"

/** Screenshots of the backlink health pages for people to look at, light and dark, at each screen width. */
const SHOTS = process.env["BACKLINK_SHOTS_DIR"] ?? "/tmp/hpage-shots"

const shot = shotsIn(SHOTS)

/** A website with backlinks in every state, the lost ones with their checks, as the checker leaves them. */
const backlinksInEveryState = (siteId: SiteId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const gone = yield* app.makeBacklink(siteId, {
      acquired_at: inMonth(2),
      source_domain: "gone.example.org",
      source_url: "https://gone.example.org/garden/best-secateurs-of-the-year",
      anchor_text: "sharp secateurs",
      category: "industry"
    })
    yield* setHealth(gone, { status: "lost", lost_reason: "page_not_found", last_checked_at: inMonth(2) })
    for (const [hours, outcome, status] of [
      [48, "found", 200],
      [25, "page_not_found", 404],
      [1, "page_not_found", 410]
    ] as const) {
      yield* insertCheck(gone, {
        checked_at: new Date(Date.parse(inMonth(2)) - hours * 3_600_000).toISOString(),
        outcome,
        http_status: status,
        final_url: "https://gone.example.org/garden/best-secateurs-of-the-year",
        anchor_text: outcome === "found" ? "sharp secateurs" : null,
        indexable: outcome === "found" ? true : null,
        duration_ms: 240
      })
    }
    yield* insertCheck(gone, {
      checked_at: new Date(Date.parse(inMonth(2)) - 3 * 3_600_000).toISOString(),
      outcome: "unreachable",
      error: "no answer within 15 s",
      duration_ms: 15_000
    })
    yield* insertCheck(gone, {
      checked_at: new Date(Date.parse(inMonth(2)) - 2 * 3_600_000).toISOString(),
      outcome: "redirected_away",
      http_status: 200,
      final_url: "https://gone.example.org/a-very-long-address/that-the-redirects-ended-on/for-a-phone-screen",
      duration_ms: 530
    })
    const removed = yield* app.makeBacklink(siteId, {
      acquired_at: inMonth(1, 1),
      source_domain: "forum.example.net",
      category: "local"
    })
    yield* setHealth(removed, { status: "lost", lost_reason: "link_removed", last_checked_at: inMonth(1) })
    const kept = yield* app.makeBacklink(siteId, {
      acquired_at: inMonth(3),
      source_domain: "www.a-rather-long-garden-directory.example",
      anchor_text: "garden tools",
      anchor_type: "exact_match",
      category: "industry"
    })
    yield* setHealth(kept, {
      status: "live",
      rel: ["nofollow", "sponsored", "ugc"],
      indexable: false,
      last_checked_at: inMonth(3)
    })
    yield* app.makeBacklink(siteId, { acquired_at: inMonth(4), source_domain: "new.example.com", status: "pending" })
    return gone
  })

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: backlink health", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(
        `${at}: the website page shows lost links, filters them by keyboard and opens a backlink's checks`,
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { page, email, siteId } = yield* visitor(screen)
            const gone = yield* backlinksInEveryState(siteId)
            yield* signIn(page, email, `/sites/${siteId}`)
            const industry = page.getByRole("table", { name: "Industry backlinks, newest first" })
            const goneRow = yield* inBrowser(() =>
              industry.getByRole("row").filter({ hasText: "gone.example.org" }).textContent()
            )
            assert.include(goneRow, "Lost")
            assert.include(goneRow, "Page not found (404/410)")
            const keptRow = yield* inBrowser(() =>
              industry.getByRole("row").filter({ hasText: "garden-directory" }).textContent()
            )
            for (const word of ["Live", "nofollow", "sponsored", "ugc", "not indexable"]) assert.include(keptRow, word)
            // The chart's figures for screen readers: this month one lost and one live, one pending.
            const health = yield* inBrowser(() =>
              page
                .getByRole("table", { name: "Backlinks acquired per month, live and lost now" })
                .locator("tbody tr")
                .last()
                .textContent()
            )
            assert.match(health ?? "", /1\s*1\s*1\s*3$/)
            yield* checkPage(page, "backlinks-website")
            yield* shot(page, "website", "section[aria-labelledby=backlinks]")

            // By keyboard: Tab reaches the filter and each backlink's page, with a visible focus ring.
            const names = yield* tabThrough(page, 80)
            assert.include(names, "Lost")
            assert.include(names, "gone.example.org")
            yield* inBrowser(() =>
              page.getByRole("navigation", { name: "Show backlinks" }).getByRole("link", { name: "Lost" }).focus()
            )
            yield* follow(page, () => page.keyboard.press("Enter"))
            assert.strictEqual(new URL(page.url()).searchParams.get("backlink_status"), "lost")
            assert.include(yield* text(page, "h2#backlinks"), "lost only")
            const lostRows = yield* inBrowser(() =>
              page
                .getByRole("table", { name: /backlinks, lost only, newest first/ })
                .locator("tbody tr")
                .allInnerTexts()
            )
            assert.strictEqual(lostRows.length, 2)
            assert.isTrue(lostRows.every((row) => row.includes("Lost")))
            yield* checkPage(page, "backlinks-website-lost")
            yield* shot(page, "website-lost", "section[aria-labelledby=backlinks]")
            yield* inBrowser(() => page.emulateMedia({ colorScheme: "dark" }))
            yield* checkPage(page, "backlinks-website-lost-dark")
            yield* inBrowser(() => page.emulateMedia({ colorScheme: "light" }))

            yield* inBrowser(() => page.getByRole("link", { name: "gone.example.org" }).focus())
            yield* follow(page, () => page.keyboard.press("Enter"))
            assert.strictEqual(new URL(page.url()).pathname, `/backlinks/${gone}`)
            assert.strictEqual(yield* text(page, "h1"), "Backlink from gone.example.org")
            const checks = yield* inBrowser(() =>
              page.getByRole("table", { name: "Last 20 checks, newest first" }).locator("tbody tr").allInnerTexts()
            )
            assert.strictEqual(checks.length, 5)
            assert.include(checks[0]!, "Page not found (404/410)")
            assert.include(checks[1]!, "Page redirects elsewhere")
            assert.include(checks[2]!, "Unreachable")
            assert.include(checks[2]!, "no answer within 15 s")
            assert.include(checks[4]!, "Link found")
            yield* checkPage(page, "backlink-history")
            yield* shot(page, "backlink-history")
            yield* inBrowser(() => page.emulateMedia({ colorScheme: "dark" }))
            yield* checkPage(page, "backlink-history-dark")
            yield* inBrowser(() => page.emulateMedia({ colorScheme: "light" }))
            const order = yield* tabThrough(page, 12)
            assert.include(order, "Back to the website")
            assert.include(order, "How the checker works")
          })
      )

      it.scoped(`${at}: the link checker's page is public, readable and accessible, light and dark`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page } = yield* visitor(screen)
          yield* inBrowser(() => page.goto("/link-checker"))
          assert.strictEqual(yield* text(page, "h1"), "The link checker")
          yield* checkPage(page, "link-checker")
          yield* inBrowser(() => page.emulateMedia({ colorScheme: "dark" }))
          yield* checkPage(page, "link-checker-dark")
          yield* inBrowser(() => page.emulateMedia({ colorScheme: "light" }))
          yield* shot(page, "link-checker")
        })
      )
    }

    it.scoped(`at ${PHONE.width} px: a backlink's row is its name with its badge beside it, its values below`, () =>
      Effect.gen(function* () {
        yield* startClock
        const { page, email, siteId } = yield* visitor(PHONE)
        yield* backlinksInEveryState(siteId)
        yield* signIn(page, email, `/sites/${siteId}`)
        const rows = yield* compactRowLayout(
          page.getByRole("region", { name: "Industry backlinks, newest first" }).locator("tbody tr")
        )
        assert.strictEqual(rows.length, 3)
        for (const row of rows) {
          assert.isTrue(row.badgeBesideName && row.valuesBelow && row.fitsIn, JSON.stringify(row))
        }
      })
    )
  })
})
