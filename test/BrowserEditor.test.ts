import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Locator, Page } from "playwright-core"
import { demoImage } from "../src/Demo/Images.js"
import { articleRow, PARTNER, revisions } from "./support/ArticlePage.js"
import { browserAvailable, ChromiumLive, inBrowser, screenshot } from "./support/Browser.js"
import { BODY, follow, LINK, onArticle, seenTexts, startClock, text } from "./support/BrowserFlows.js"
import { checkPage, SCREENS } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"

const editor = (page: Page) => page.locator(".rich-text")

/** The text a reader sees in `locator` (Playwright's rendered text, not the DOM's). */
// biome-ignore lint/performance/useDomNodeTextContent: this is Playwright's Locator, and the rendered text is the point
const shownText = (locator: Locator) => inBrowser(() => locator.innerText())

/**
 * Puts the cursor in the editor's text node that holds `words`: after them, or `back` characters before that. Set
 * through the page's selection (as a click would), so it does not depend on where a narrow screen wraps the lines.
 */
const caretAfter = (page: Page, words: string, back = 0) =>
  inBrowser(async () => {
    await editor(page).focus()
    await page.evaluate(
      ([words, back]) => {
        const root = document.querySelector(".rich-text")!
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
        while (walker.nextNode()) {
          const node = walker.currentNode as Text
          const at = node.data.indexOf(words)
          if (at >= 0 && node.parentElement?.closest(".protected-link") === null) {
            document.getSelection()!.collapse(node, at + words.length - back)
            return
          }
        }
        throw new Error(`no text "${words}" in the editor`)
      },
      [words, back] as const
    )
    // The editor takes the selection from the browser's selectionchange event: wait until it has.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)))
  })

const endOf = (page: Page, words: string) => caretAfter(page, words)

/** Selects the whole editor block that holds `words` (a paragraph with a protected link in it, say). */
const selectBlock = (page: Page, words: string) =>
  inBrowser(async () => {
    await editor(page).focus()
    await page.evaluate((words) => {
      const block = [...document.querySelectorAll(".rich-text p")].find((p) => p.textContent?.includes(words))!
      document.getSelection()!.selectAllChildren(block)
    }, words)
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)))
  })

/** The body the editor would send now: its HTML, as "Edit HTML" shows it (and back to rich text). */
const editorHtml = (page: Page) =>
  inBrowser(async () => {
    await page.getByRole("button", { name: "Edit HTML" }).click()
    const value = await page.getByLabel("HTML body").inputValue()
    await page.getByRole("button", { name: "Back to rich text" }).click()
    return value
  })

const save = (page: Page) =>
  inBrowser(async () => {
    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Save" }).click()])
  })

const protectedInEditor = (page: Page) => inBrowser(() => editor(page).locator(".protected-link").count())

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: the rich-text editor", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(`${at}: a paragraph edited and saved is one editor revision that changes that paragraph only`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          assert.isTrue(yield* inBrowser(() => editor(page).isVisible()), "the rich-text editor replaces the textarea")
          assert.isFalse(yield* inBrowser(() => page.getByLabel("HTML body").isVisible()))
          const locked = editor(page).locator(".protected-link")
          assert.strictEqual(yield* inBrowser(() => locked.getAttribute("contenteditable")), "false")
          assert.include(
            yield* inBrowser(() => locked.getAttribute("title")),
            "Protected backlink to https://partner.example/"
          )
          assert.include(yield* shownText(locked), "https://partner.example/")
          yield* checkPage(page, "editor")

          yield* endOf(page, "Drain the outdoor taps.")
          yield* inBrowser(() => page.keyboard.type(" Before November."))
          yield* save(page)
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
          const saved = yield* revisions(articleId)
          assert.deepStrictEqual(
            saved.map((r) => [r.number, r.origin]),
            [
              [1, "rewrite"],
              [2, "editor"]
            ]
          )
          // Every other block is stored exactly as it was, line breaks between blocks included.
          assert.strictEqual(
            saved[1]!.body,
            BODY.replace("<p>Drain the outdoor taps.</p>", "<p>Drain the outdoor taps. Before November.</p>")
          )
        })
      )

      it.scoped(`${at}: a protected link stays through Backspace, Delete on a selection and Cut`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          const status = page.locator(".editor-status")

          // Backspace right after the link.
          yield* caretAfter(page, " today.", " today.".length)
          yield* inBrowser(() => page.keyboard.press("Backspace"))
          assert.strictEqual(yield* protectedInEditor(page), 1, "Backspace")
          assert.include(yield* shownText(status), "Protected links stay as they are")

          // A selection across it, then Delete.
          yield* selectBlock(page, "today.")
          yield* inBrowser(() => page.keyboard.press("Delete"))
          assert.strictEqual(yield* protectedInEditor(page), 1, "Delete on a selection")
          assert.include(yield* shownText(editor(page)), "Read about")

          // The same selection, cut.
          yield* selectBlock(page, "today.")
          yield* inBrowser(() => page.keyboard.press("Control+x"))
          assert.strictEqual(yield* protectedInEditor(page), 1, "Cut")
          assert.include(yield* shownText(editor(page)), "Read about")

          // Typing around it is fine, and the link goes to the service exactly as stored.
          yield* endOf(page, "today.")
          yield* inBrowser(() => page.keyboard.type(" Really."))
          assert.include(yield* editorHtml(page), `<p>Read about ${LINK} today. Really.</p>`)
          yield* save(page)
          assert.strictEqual((yield* articleRow(articleId)).body, BODY.replace("today.</p>", "today. Really.</p>"))
        })
      )

      it.scoped(`${at}: rich text pasted with a script and an iframe is cleaned to what the service keeps`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          const dialogs: Array<string> = []
          page.on("dialog", (dialog) => {
            dialogs.push(dialog.message())
            void dialog.dismiss()
          })
          yield* endOf(page, "Drain the outdoor taps.")
          // What a word processor or a hostile page puts on the clipboard: Google Docs' wrapper and styled spans,
          // a script, an iframe, an event handler, a javascript: link and a copy of a protected link.
          const pasted = [
            '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-1234">',
            '<p><span style="font-weight:700">Frost</span> <span style="font-style:italic">warning</span>',
            '<script>alert("script")</script><iframe src="https://evil.example/"></iframe>',
            ' <img src="x" onerror="alert(\'img\')"> <a href="javascript:alert(\'link\')">bad link</a>',
            ` and <a data-service-protected="internal" href="/copied">a copied link</a>.</p></b>`
          ].join("")
          yield* inBrowser(() =>
            page.evaluate((html) => {
              const data = new DataTransfer()
              data.setData("text/html", html)
              data.setData("text/plain", "fallback")
              document
                .querySelector(".rich-text")!
                .dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }))
            }, pasted)
          )
          const shown = yield* shownText(editor(page))
          assert.include(shown, "Frost warning")
          assert.include(shown, "bad link and a copied link.")
          assert.notInclude(shown, "alert")
          assert.strictEqual(yield* inBrowser(() => editor(page).locator("script, iframe").count()), 0)
          assert.strictEqual(yield* protectedInEditor(page), 1, "the pasted protected link is plain text")
          const body = yield* editorHtml(page)
          assert.include(body, "<strong>Frost</strong> <em>warning</em>")
          assert.notMatch(body, /script|iframe|onerror|javascript:|\/copied|docs-internal/)
          yield* save(page)
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
          assert.notMatch((yield* articleRow(articleId)).body, /script|iframe|onerror|javascript:|\/copied/)
          assert.deepStrictEqual(dialogs, [])
        })
      )

      it.scoped(`${at}: Preview changes shows the change word by word in the page, the HTML diff a click away`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          yield* inBrowser(() => page.getByLabel("Title").fill("Pipes in a cold winter"))
          // One word changed: "outdoor" becomes "garden".
          yield* endOf(page, "Drain the outdoor")
          yield* inBrowser(async () => {
            for (let i = 0; i < "outdoor".length; i++) await page.keyboard.press("Backspace")
            await page.keyboard.type("garden")
          })
          const url = page.url()
          yield* inBrowser(async () => {
            await page.getByRole("button", { name: "Preview changes" }).click()
            await page.locator("#preview h2").waitFor()
          })
          assert.strictEqual(page.url(), url, "the preview comes into the page")
          assert.include(yield* text(page, "#preview"), "Preview of your change")
          assert.deepStrictEqual(yield* seenTexts(page.locator("#preview dl.field-changes ins")), ["a cold"])
          // The paragraph as it reads, that word struck and the new one marked; nothing else marked.
          assert.deepStrictEqual(yield* seenTexts(page.locator("#preview .word-diff p.changed")), [
            "Drain the outdoorgarden taps."
          ])
          const marked = (selector: string) => seenTexts(page.locator(`#preview div.word-diff ${selector}`))
          assert.deepStrictEqual(yield* marked("del"), ["outdoor"])
          assert.deepStrictEqual(yield* marked("ins"), ["garden"])
          // A screen reader is told which word went and which came: del and ins alone are not announced.
          assert.strictEqual(
            yield* inBrowser(() => page.locator("#preview .word-diff p.changed").ariaSnapshot()),
            [
              "- paragraph:",
              "  - text: Drain the",
              '  - deletion: "[removed: outdoor ]"',
              '  - insertion: "[inserted: garden ]"',
              "  - text: taps."
            ].join("\n")
          )
          // The kept protected link is shown as a link, with its padlock.
          assert.deepStrictEqual(yield* marked("mark.protected-source a"), [PARTNER.text])
          // The HTML diff is there behind "Show HTML".
          assert.isFalse(yield* inBrowser(() => page.locator("#preview pre.diff").isVisible()))
          yield* inBrowser(() => page.getByText("Show HTML").click())
          assert.include(yield* text(page, "#preview pre.diff ins"), "+<p>Drain the garden taps.</p>")
          assert.include(yield* text(page, "#preview pre.diff del"), "-<p>Drain the outdoor taps.</p>")
          assert.strictEqual((yield* revisions(articleId)).length, 1, "a preview saves nothing")
          // The typed text is still in the editor, ready to save.
          assert.include(yield* shownText(editor(page)), "Drain the garden taps.")
          yield* checkPage(page, "editor-preview")

          // A change the service would refuse is shown as the refusal, in place.
          yield* inBrowser(() => page.getByLabel("Title").fill("   "))
          yield* inBrowser(async () => {
            await page.getByRole("button", { name: "Preview changes" }).click()
            await page.locator("#preview [role=alert]").waitFor()
          })
          assert.include(yield* text(page, "#preview [role=alert]"), "title")
          assert.strictEqual((yield* revisions(articleId)).length, 1)
        })
      )

      it.scoped(`${at}: a refused save keeps the typed text; the counters show the bounds`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          assert.strictEqual(yield* text(page, "#title-count"), "15 of 255 characters")
          assert.strictEqual(yield* text(page, "#meta_description-count"), "8 of 500 characters")
          yield* inBrowser(() => page.getByLabel("Title").fill(""))
          assert.include(yield* text(page, "#title-count"), "Required")
          yield* inBrowser(() => page.getByLabel("Meta description").fill("x".repeat(503)))
          assert.strictEqual(yield* text(page, "#meta_description-count"), "503 of 500 characters: 3 too many")
          yield* endOf(page, "Drain the outdoor taps.")
          yield* inBrowser(() => page.keyboard.type(" Words worth keeping."))
          yield* save(page)
          assert.include(yield* text(page, "#editor-note"), "Nothing was saved.")
          assert.include(yield* shownText(editor(page)), "Drain the outdoor taps. Words worth keeping.")
          assert.strictEqual((yield* revisions(articleId)).length, 1)
          assert.strictEqual((yield* articleRow(articleId)).body, BODY)
          yield* checkPage(page, "editor-refused")
        })
      )

      it.scoped(`${at}: editing with the keyboard alone: Tab into the text, type, bold, Tab to Save`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(screen)
          yield* inBrowser(() => page.getByLabel("Title").focus())
          const reached = yield* inBrowser(async () => {
            for (let i = 0; i < 30; i++) {
              await page.keyboard.press("Tab")
              if (await page.evaluate(() => document.activeElement?.classList.contains("rich-text") === true)) return i
            }
            return -1
          })
          assert.isAtLeast(reached, 0, "Tab reaches the editor")
          yield* inBrowser(() => page.keyboard.press("Control+End"))
          assert.include(
            yield* inBrowser(() => page.evaluate(() => document.getSelection()?.anchorNode?.textContent ?? "")),
            "Keep the heating on",
            "Ctrl+End reaches the end of the text"
          )
          // The editor has taken the new place of the cursor when its toolbar shows the text style there (the last
          // list item's paragraph, where the cursor was in the heading before).
          yield* inBrowser(() =>
            page.waitForFunction(() => document.querySelector<HTMLSelectElement>(".toolbar select")?.value === "p")
          )
          yield* inBrowser(async () => {
            await page.keyboard.press("End")
            await page.keyboard.press("Enter")
            await page.keyboard.press("Enter")
            await page.keyboard.type("Typed by keyboard ")
            await page.keyboard.press("Control+b")
            await page.keyboard.type("only")
            await page.keyboard.press("Control+b")
            await page.keyboard.type(".")
            // Out of the text, past Reason and Preview, to Save.
            await page.keyboard.press("Tab")
            await page.keyboard.press("Tab")
            await page.keyboard.press("Tab")
          })
          assert.strictEqual(yield* inBrowser(() => page.evaluate(() => document.activeElement?.textContent)), "Save")
          yield* inBrowser(() => Promise.all([page.waitForEvent("load"), page.keyboard.press("Enter")]))
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
          assert.strictEqual(
            (yield* articleRow(articleId)).body,
            `${BODY}\n<p>Typed by keyboard <strong>only</strong>.</p>`
          )
        })
      )
    }

    it.scoped(
      "without script the HTML textarea is the editor, and Preview changes loads the page with the preview",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, articleId } = yield* onArticle(SCREENS[0], { script: false })
          assert.strictEqual(yield* inBrowser(() => page.locator(".rich-text").count()), 0)
          yield* inBrowser(() =>
            page.getByLabel("HTML body").fill(BODY.replace("Drain the outdoor taps.", "Drain the taps."))
          )
          yield* follow(page, () => page.getByRole("button", { name: "Preview changes" }).click())
          assert.deepStrictEqual(yield* seenTexts(page.locator("#preview div.word-diff del")), ["outdoor"])
          // "Show HTML" opens without script too.
          yield* inBrowser(() => page.getByText("Show HTML").click())
          assert.include(yield* text(page, "#preview pre.diff ins"), "+<p>Drain the taps.</p>")
          assert.include(yield* inBrowser(() => page.getByLabel("HTML body").inputValue()), "Drain the taps.")
          assert.strictEqual((yield* revisions(articleId)).length, 1)
          // (axe-core needs script, so this page gets a picture only.)
          yield* screenshot(page, "editor-no-script-1280")
          yield* follow(page, () => page.getByRole("button", { name: "Save" }).click())
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
        })
    )

    it.scoped("the featured image is uploaded from the page, or refused with the endpoint's rules", () =>
      Effect.gen(function* () {
        yield* startClock
        const { page, articleId } = yield* onArticle(SCREENS[0])
        // A file that is not an image, whatever its name says: the endpoint's type check, by content.
        yield* inBrowser(() =>
          page.getByLabel(/Upload an image/).setInputFiles({
            name: "photo.png",
            mimeType: "image/png",
            buffer: Buffer.from("not an image at all")
          })
        )
        yield* follow(page, () => page.getByRole("button", { name: "Set featured image" }).click())
        assert.include(yield* text(page, "[role=alert]"), "Nothing was saved.")
        assert.strictEqual((yield* revisions(articleId)).length, 1)

        yield* inBrowser(() =>
          page.getByLabel(/Upload an image/).setInputFiles({
            name: "frost.png",
            mimeType: "image/png",
            buffer: Buffer.from(demoImage("frost"))
          })
        )
        yield* inBrowser(() => page.getByLabel("Reason for the new image (optional)").fill("a winter picture"))
        yield* follow(page, () => page.getByRole("button", { name: "Set featured image" }).click())
        assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
        const src = yield* inBrowser(() => page.locator("img.featured").getAttribute("src"))
        assert.match(src ?? "", /\/media\/[0-9a-f]+\.png$/)
        assert.strictEqual((yield* revisions(articleId))[1]!.origin, "editor")

        // An address instead of a file.
        yield* inBrowser(() => page.getByLabel(/the image's address/).fill("https://images.example/frost.jpg"))
        yield* follow(page, () => page.getByRole("button", { name: "Set featured image" }).click())
        assert.strictEqual(
          yield* inBrowser(() => page.locator("img.featured").getAttribute("src")),
          "https://images.example/frost.jpg"
        )
        yield* inBrowser(() => page.getByLabel(/the image's address/).fill("ftp://images.example/frost.jpg"))
        yield* follow(page, () => page.getByRole("button", { name: "Set featured image" }).click())
        assert.include(yield* text(page, "[role=alert]"), "http")
        assert.strictEqual((yield* revisions(articleId)).length, 3)
      })
    )
  })
})
