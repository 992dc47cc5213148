import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import type { Page } from "playwright-core"
import type { ArticleId } from "../src/Domain/Ids.js"
import { browserAvailable, ChromiumLive, inBrowser, newPage, screenshot } from "./support/Browser.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { apiStatus, PASSWORD, readByApiAndMcp } from "./support/WebPages.js"

/**
 * Under `layer(...)` the server runs on the test clock, which starts at the epoch; the browser's requests meet that
 * clock too. Each test starts at the real time and a minute after the previous one, so that no two share a
 * request-limit window.
 */
let lastStart = 0
const startClock = Effect.suspend(() => {
  lastStart = Math.max(Date.now(), lastStart + 61_000)
  return TestClock.setTime(lastStart)
})

/** A new account with a password and one website, and a fresh browser page on the server. */
const visitor = (options: { readonly viewport?: { width: number; height: number } } = {}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const email = `browser-${crypto.randomUUID().slice(0, 8)}@example.com`
    const account = yield* app.makeAccount({ email, password: PASSWORD })
    const siteId = yield* app.makeSite(account.accountId, { name: "Garden Tools Weekly" })
    const page = yield* newPage({ baseURL: app.baseUrl, ...options })
    return { app, page, siteId, ...account }
  })

/** Opens a protected page, is sent to sign in, fills the form by its labels and lands back on the page. */
const signIn = (page: Page, email: string, path = "/sites") =>
  inBrowser(async () => {
    await page.goto(path)
    await page.waitForURL(`**/signin?return_to=${encodeURIComponent(path)}`)
    await page.getByLabel("E-mail").fill(email)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(`**${path}`)
  })

const PARTNER = { href: "https://partner.example/", text: "our partner" }
const PROTECTED_BODY = `<p>Read about <a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a> today.</p>`

/** A visitor whose website has an article with a protected link. */
const withArticle = Effect.gen(function* () {
  const found = yield* visitor()
  const articleId = yield* found.app.makeArticle(found.siteId, {
    title: "Pipes in winter",
    meta_description: "Old meta",
    body: PROTECTED_BODY
  })
  return { ...found, articleId }
})

const articleRow = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ title: string; body: string }>`select title, body from articles where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  )

const revisions = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ number: number; origin: string; title: string; body: string }>`
      select number, origin, title, body from article_revisions where article_id = ${id} order by number`.pipe(
      Effect.orDie
    )
  )

/** Submits the editor with `fields` changed, then waits for the page that answers. */
const saveInEditor = (page: Page, fields: { readonly title?: string; readonly body?: string }) =>
  inBrowser(async () => {
    if (fields.title !== undefined) await page.getByLabel("Title").fill(fields.title)
    if (fields.body !== undefined) await page.getByLabel("HTML body").fill(fields.body)
    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Save" }).click()])
  })

/** The text a reader sees in the first element matching `selector` (Playwright's rendered text, not the DOM's). */
// biome-ignore lint/performance/useDomNodeTextContent: this is Playwright's Locator, and the rendered text is the point
const text = (page: Page, selector: string) => inBrowser(() => page.locator(selector).innerText())

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser", (it) => {
    describe("signing in and the website pages", () => {
      it.scoped("signing in with e-mail and password lands on the websites list, which opens a website", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor()
          yield* signIn(page, email)
          assert.strictEqual(yield* text(page, "h1"), "Websites")
          assert.include(yield* text(page, "header.site"), email)
          yield* screenshot(page, "01-websites")

          yield* inBrowser(() => page.getByRole("link", { name: "Garden Tools Weekly" }).click())
          yield* inBrowser(() => page.waitForURL(/\/sites\/\d+$/))
          assert.strictEqual(yield* text(page, "h1"), "Garden Tools Weekly")
          yield* screenshot(page, "02-website")
        })
      )

      it.scoped("Tab moves through the sign-in form: e-mail, password, then the submit button", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page } = yield* visitor()
          yield* inBrowser(() => page.goto("/signin"))
          yield* screenshot(page, "03-signin")
          // The name of the focused element: its label, or a button's text.
          const focused = inBrowser(() =>
            page.evaluate(() => {
              const element = document.activeElement
              if (element instanceof HTMLInputElement) return element.labels?.[0]?.textContent ?? element.name
              return element?.textContent?.trim() ?? ""
            })
          )
          const order: Array<string> = []
          for (let i = 0; i < 3; i++) {
            yield* inBrowser(() => page.keyboard.press("Tab"))
            order.push(yield* focused)
          }
          assert.deepStrictEqual(order, ["E-mail", "Password", "Sign in"])
        })
      )

      it.scoped("on a 375 pixel wide screen the websites page does not scroll sideways", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor({ viewport: { width: 375, height: 740 } })
          yield* signIn(page, email)
          const width = yield* inBrowser(() => page.evaluate(() => document.documentElement.scrollWidth))
          yield* screenshot(page, "04-websites-narrow")
          assert.isAtMost(width, 375)
        })
      )

      it.scoped("after signing out, a protected page sends the browser to sign in", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor()
          yield* signIn(page, email, "/connection")
          yield* inBrowser(() => page.getByRole("button", { name: "Sign out" }).click())
          yield* inBrowser(() => page.waitForURL("**/signin"))
          yield* screenshot(page, "05-signed-out")
          yield* inBrowser(() => page.goto("/connection"))
          assert.strictEqual(
            new URL(page.url()).pathname + new URL(page.url()).search,
            "/signin?return_to=%2Fconnection"
          )
          assert.strictEqual(yield* text(page, "h1"), "Sign in")
        })
      )
    })

    describe("site connection", () => {
      it.scoped(
        "a key created in the page is shown once, works with the API, and is refused with 401 once revoked",
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { page, email } = yield* visitor()
            yield* signIn(page, email, "/connection")
            yield* screenshot(page, "06-connection")

            yield* inBrowser(() => page.getByLabel("Key name").fill("Browser script"))
            yield* inBrowser(() =>
              Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Create key" }).click()])
            )
            assert.include(yield* text(page, "main"), "will not be shown again")
            const key = yield* inBrowser(() => page.locator("#new-key").inputValue())
            assert.match(key, /^cbs_/)
            // The copy button appears once its script has run; found by its accessible name, it copies the key field.
            const copy = page.getByRole("button", { name: "Copy", exact: true })
            yield* inBrowser(() => copy.waitFor({ state: "visible" }))
            assert.strictEqual(yield* inBrowser(() => copy.getAttribute("data-copy")), "new-key")
            yield* screenshot(page, "07-key-created")
            assert.strictEqual(yield* apiStatus(key), 200)

            yield* inBrowser(() => page.goto("/connection"))
            assert.notInclude(yield* inBrowser(() => page.content()), key)
            yield* inBrowser(() => page.getByRole("button", { name: "Revoke key Browser script" }).click())
            yield* inBrowser(() => page.waitForURL(/\/connection\?done=key-revoked#keys$/))
            assert.include(yield* text(page, "main"), "The key was revoked.")
            yield* screenshot(page, "08-key-revoked")
            assert.strictEqual(yield* apiStatus(key), 401)
          })
      )
    })
    describe("the article page", () => {
      it.scoped("a title saved in the editor is a revision with origin editor", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId } = yield* withArticle
          yield* signIn(page, email, `/articles/${articleId}`)
          assert.strictEqual(yield* text(page, "h1"), "Pipes in winter")
          yield* screenshot(page, "09-article")

          yield* saveInEditor(page, { title: "Pipes in a cold winter" })
          const saved = yield* revisions(articleId)
          assert.strictEqual(saved.length, 1)
          assert.strictEqual(saved[0]!.origin, "editor")
          assert.strictEqual(saved[0]!.title, "Pipes in a cold winter")
          assert.strictEqual(new URL(page.url()).search, `?saved=${saved[0]!.number}`)
          assert.strictEqual(yield* text(page, "[role=status]"), `Saved as revision ${saved[0]!.number}.`)
          assert.strictEqual(yield* text(page, "h1"), "Pipes in a cold winter")
          assert.strictEqual((yield* articleRow(articleId)).title, "Pipes in a cold winter")
          yield* screenshot(page, "10-article-saved")
        })
      )

      it.scoped("removing a protected link in the editor is refused: the page says why and nothing is saved", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId } = yield* withArticle
          yield* signIn(page, email, `/articles/${articleId}`)
          yield* saveInEditor(page, { body: "<p>Read about our partner today.</p>" })
          const alert = yield* text(page, "[role=alert]")
          assert.include(alert, "Nothing was saved.")
          assert.include(alert, "This change would remove or alter these protected links")
          assert.include(alert, `“${PARTNER.text}” → ${PARTNER.href}`)
          // The submitted text stays in the editor, so the work is not lost.
          assert.strictEqual(
            yield* inBrowser(() => page.getByLabel("HTML body").inputValue()),
            "<p>Read about our partner today.</p>"
          )
          yield* screenshot(page, "11-protected-link-refused")
          const row = yield* articleRow(articleId)
          assert.strictEqual(row.body, PROTECTED_BODY)
          assert.strictEqual(row.title, "Pipes in winter")
          assert.deepStrictEqual(yield* revisions(articleId), [])
        })
      )

      it.scoped("an earlier revision opened from the history is restored as a new editor revision", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId } = yield* withArticle
          yield* signIn(page, email, `/articles/${articleId}`)
          yield* saveInEditor(page, { title: "First", body: `${PROTECTED_BODY}\n<p>First version.</p>` })
          yield* saveInEditor(page, { title: "Second", body: `${PROTECTED_BODY}\n<p>Second version.</p>` })
          const [first, second] = yield* revisions(articleId)
          yield* inBrowser(() => page.getByRole("link", { name: String(first!.number), exact: true }).click())
          yield* inBrowser(() => page.waitForURL(`**/articles/${articleId}/revisions/${first!.number}`))
          assert.strictEqual(yield* text(page, "h1"), `Revision ${first!.number} of Second`)
          yield* screenshot(page, "12-revision")

          yield* inBrowser(() => page.getByRole("button", { name: "Restore this revision" }).click())
          yield* inBrowser(() => page.waitForURL(/\/articles\/\d+\?saved=\d+$/))
          const all = yield* revisions(articleId)
          assert.strictEqual(all.length, 3)
          assert.strictEqual(all[2]!.number, second!.number + 1)
          assert.strictEqual(all[2]!.origin, "editor")
          assert.strictEqual(all[2]!.title, "First")
          assert.strictEqual(all[2]!.body, first!.body)
          assert.strictEqual(yield* text(page, "[role=status]"), `Saved as revision ${all[2]!.number}.`)
          assert.strictEqual(yield* text(page, "h1"), "First")
          yield* screenshot(page, "13-revision-restored")
        })
      )

      it.scoped("the activity log lists the article's API and MCP calls", () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId, key } = yield* withArticle
          yield* readByApiAndMcp({ articleId, key, email })

          yield* signIn(page, email, `/articles/${articleId}`)
          yield* inBrowser(() => page.getByRole("link", { name: "Activity log" }).click())
          yield* inBrowser(() => page.waitForURL(`**/articles/${articleId}/activity`))
          const rows = yield* inBrowser(() => page.locator("tbody tr").allInnerTexts())
          const apiRow = rows.find((row) => row.includes(`GET /api/v1/articles/${articleId}`))
          const mcpRow = rows.find((row) => row.includes("get_article"))
          assert.isDefined(apiRow, rows.join("\n"))
          assert.isDefined(mcpRow, rows.join("\n"))
          assert.include(apiRow!, "API")
          assert.include(apiRow!, "200")
          assert.include(mcpRow!, "MCP")
          yield* screenshot(page, "14-activity")
        })
      )
    })
  })
})
