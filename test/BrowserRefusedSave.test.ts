import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { articleRow, PARTNER, revisions } from "./support/ArticlePage.js"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { BODY, LINK, onArticle, startClock, text } from "./support/BrowserFlows.js"
import { checkPage, SCREENS } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"

/** Typed in "Edit HTML": the protected link left as plain text, and a paragraph the sanitiser would rewrite. */
const TYPED = `${BODY.replace(LINK, PARTNER.text)}\n<P CLASS=late>Check the meter &amp; the valve.`

/** Focuses the button named `name` and presses Enter on it; waits for the page that answers when `loads`. */
const press = (page: Page, name: string, loads = true) =>
  inBrowser(async () => {
    await page.getByRole("button", { name, exact: true }).focus()
    await Promise.all([...(loads ? [page.waitForEvent("load")] : []), page.keyboard.press("Enter")])
  })

/** The editor's state a person sees: which mode, the HTML text, and what has the focus and whether it is in view. */
const editorState = (page: Page) =>
  Effect.flatMap(text(page, "button.mode"), (toggle) =>
    inBrowser(async () => ({
      htmlShown: await page.getByLabel("HTML body").isVisible(),
      toggle,
      typed: await page.getByLabel("HTML body").inputValue(),
      focused: await page.evaluate(() => document.activeElement?.id ?? ""),
      inView: await page.locator("#editor-note").evaluate((note) => {
        const box = note.getBoundingClientRect()
        return box.top >= 0 && box.top < window.innerHeight
      })
    }))
  )

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: a refused save in the editor", (it) => {
    for (const screen of SCREENS) {
      it.scoped(`at ${screen.width} px: a refused HTML save comes back as typed; the links put back, it saves`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          yield* press(page, "Edit HTML", false)
          yield* inBrowser(() => page.getByLabel("HTML body").fill(TYPED))
          yield* press(page, "Save")

          const refused = yield* editorState(page)
          assert.deepStrictEqual(refused, {
            htmlShown: true,
            toggle: "Back to rich text",
            typed: TYPED,
            focused: "editor-note",
            inView: true
          })
          assert.include(yield* text(page, "#editor-note"), "Nothing was saved.")
          assert.strictEqual(new URL(page.url()).pathname, `/articles/${articleId}`, "the address names the article")
          assert.strictEqual((yield* revisions(articleId)).length, 1, "only the imported original")
          yield* checkPage(page, "editor-refused-html")

          // From the refusal, Tab reaches its button: put the links back, then save.
          yield* inBrowser(async () => {
            await page.keyboard.press("Tab")
            assert.strictEqual(
              await page.evaluate(() => document.activeElement?.textContent),
              "Put the protected links back"
            )
            await Promise.all([page.waitForEvent("load"), page.keyboard.press("Enter")])
          })
          const putBack = yield* editorState(page)
          assert.deepStrictEqual(putBack, {
            htmlShown: true,
            toggle: "Back to rich text",
            typed: TYPED.replace(PARTNER.text, LINK),
            focused: "editor-note",
            inView: true
          })
          yield* checkPage(page, "editor-links-put-back")

          yield* press(page, "Save")
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
          const stored = (yield* articleRow(articleId)).body
          assert.include(stored, `<p>Read about ${LINK} today.</p>`)
          assert.include(stored, "Check the meter &amp; the valve.")
        })
      )
    }
  })
})
