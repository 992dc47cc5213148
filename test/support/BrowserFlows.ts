import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import type { Locator, Page } from "playwright-core"
import type { ArticleId } from "../../src/Domain/Ids.js"
import { PARTNER } from "./ArticlePage.js"
import { inBrowser, newPage } from "./Browser.js"
import type { Screen } from "./PageChecks.js"
import { TestApp } from "./TestServer.js"
import { PASSWORD } from "./WebPages.js"

/**
 * Under `layer(...)` the server runs on the test clock, which starts at the epoch; the browser's requests meet that
 * clock too. Each test starts at the real time and a minute after the previous one, so that no two share a
 * request-limit window.
 */
let lastStart = 0
export const startClock = Effect.suspend(() => {
  lastStart = Math.max(Date.now(), lastStart + 61_000)
  return TestClock.setTime(lastStart)
})

/**
 * A new account with a password and one website, and a fresh browser page on the server with `screen`'s size
 * (`script: false`: a browser with script turned off).
 */
export const visitor = (screen: Screen, options: { readonly script?: boolean } = {}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const email = `browser-${crypto.randomUUID().slice(0, 8)}@example.com`
    const account = yield* app.makeAccount({ email, password: PASSWORD })
    const siteId = yield* app.makeSite(account.accountId, {
      name: "Garden Tools Weekly",
      website_url: "https://garden-tools-weekly.example.com"
    })
    const page = yield* newPage({ baseURL: app.baseUrl, viewport: screen, javaScriptEnabled: options.script ?? true })
    return { app, page, siteId, ...account }
  })

/** Opens a protected page, is sent to sign in, fills the form by its labels and lands back on the page. */
export const signIn = (page: Page, email: string, path = "/sites") =>
  inBrowser(async () => {
    await page.goto(path)
    await page.waitForURL(`**/signin?return_to=${encodeURIComponent(path)}`)
    await page.getByLabel("E-mail").fill(email)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(`**${path}`)
  })

/**
 * The text of each element `locator` finds as it is seen: without what only screen readers read (`.visually-hidden`,
 * such as a change mark's "[removed: "), which `innerText` includes.
 */
export const seenTexts = (locator: Locator) =>
  inBrowser(() =>
    locator.evaluateAll((elements) =>
      elements.map((element) => {
        const copy = element.cloneNode(true) as Element
        for (const hidden of copy.querySelectorAll(".visually-hidden")) hidden.remove()
        return copy.textContent ?? ""
      })
    )
  )

/** Clicks what `click` finds and waits for the page that answers to load. */
export const follow = (page: Page, click: () => Promise<void>) =>
  inBrowser(async () => {
    await Promise.all([page.waitForEvent("load"), click()])
  })

/** The text a reader sees in the first element matching `selector` (Playwright's rendered text, not the DOM's). */
// biome-ignore lint/performance/useDomNodeTextContent: this is Playwright's Locator, and the rendered text is the point
export const text = (page: Page, selector: string) => inBrowser(() => page.locator(selector).first().innerText())

/** Stores `revision` as an article's revision 1, as if it had been saved before the test. */
export const storedFirstRevision = (
  id: ArticleId,
  revision: {
    readonly origin: string
    readonly reason: string
    readonly title: string
    readonly body: string
    readonly meta_description?: string
  }
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`insert into article_revisions ${sql.insert({ article_id: id, number: 1, ...revision })}`,
      sql`update articles set revision = 1 where id = ${id}`
    ]).pipe(Effect.orDie)
  )

/** Stores revision 1 of an article as an import does: origin rewrite, reason `import <file>`, the text as it came. */
export const importedOriginal = (id: ArticleId, fields: { readonly title: string; readonly body: string }) =>
  storedFirstRevision(id, {
    origin: "rewrite",
    reason: "import garden-tools.json",
    meta_description: "Old meta",
    ...fields
  })

/** Submits the editor with `fields` changed, then waits for the page that answers. */
export const saveInEditor = (
  page: Page,
  fields: { readonly title?: string; readonly body?: string; readonly reason?: string }
) =>
  inBrowser(async () => {
    if (fields.title !== undefined) await page.getByLabel("Title").fill(fields.title)
    if (fields.body !== undefined) {
      // With the editor's script the body is rich text: "Edit HTML" brings the textarea back.
      const htmlMode = page.getByRole("button", { name: "Edit HTML" })
      if (await htmlMode.isVisible()) await htmlMode.click()
      await page.getByLabel("HTML body").fill(fields.body)
    }
    if (fields.reason !== undefined) await page.getByLabel("Reason (optional)").fill(fields.reason)
    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Save" }).click()])
  })

export const LINK = `<a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a>`
/** A canonical body with a heading, a protected link, a paragraph to edit and a list, one block a line. */
export const BODY = [
  "<h2>Before the frost</h2>",
  `<p>Read about ${LINK} today.</p>`,
  "<p>Drain the outdoor taps.</p>",
  "<ul><li>Insulate the pipes</li><li>Keep the heating on</li></ul>"
].join("\n")

/** A visitor whose website has an article with that body (revision 1, as imported), on the article page. */
export const onArticle = (screen: Screen, options: { readonly script?: boolean } = {}) =>
  Effect.gen(function* () {
    const found = yield* visitor(screen, options)
    const original = { title: "Pipes in winter", body: BODY }
    const articleId = yield* found.app.makeArticle(found.siteId, { ...original, meta_description: "Old meta" })
    yield* importedOriginal(articleId, original)
    yield* signIn(found.page, found.email, `/articles/${articleId}`)
    return { ...found, articleId }
  })
