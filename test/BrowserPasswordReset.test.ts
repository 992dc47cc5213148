import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { browserAvailable, ChromiumLive, inBrowser, newPage } from "./support/Browser.js"
import { startClock, text, visitor } from "./support/BrowserFlows.js"
import { linkIn, nextMail, TestServerWithMailLive } from "./support/Mailbox.js"
import { checkPage, SCREENS, tabThrough } from "./support/PageChecks.js"
import { serverWithSettings } from "./support/TestServer.js"

const NEW_PASSWORD = "a brand new passphrase"

/** Presses `key` on what has focus and waits for the page that answers. */
const pressFor = (page: Page, key: string) =>
  inBrowser(async () => {
    await Promise.all([page.waitForEvent("load"), page.keyboard.press(key)])
  })

/** Types `value` into what has focus, as a person at a keyboard does. */
const type = (page: Page, value: string) => inBrowser(() => page.keyboard.type(value))

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerWithMailLive, ChromiumLive))("browser: password reset", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(`${at}: forgot password, the mail's link, a new password and sign-in with it, by keyboard alone`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor(screen)
          yield* inBrowser(() => page.goto("/signin"))
          assert.deepStrictEqual(yield* tabThrough(page, 4), ["E-mail", "Password", "Sign in", "Forgot your password?"])
          yield* pressFor(page, "Enter")
          assert.strictEqual(new URL(page.url()).pathname, "/signin/forgot")
          yield* checkPage(page, "reset-ask")
          assert.deepStrictEqual(yield* tabThrough(page, 1), ["E-mail"])
          yield* type(page, email)
          yield* pressFor(page, "Enter")
          assert.strictEqual(new URL(page.url()).pathname, "/signin/forgot/sent")
          assert.include(yield* text(page, "[role=status]"), "If an account has that e-mail address")
          yield* checkPage(page, "reset-sent")

          const link = linkIn(yield* nextMail(email))
          yield* inBrowser(() => page.goto(link))
          assert.strictEqual(yield* text(page, "h1"), "Choose a new password")
          yield* checkPage(page, "reset-form")
          assert.deepStrictEqual(yield* tabThrough(page, 3), [
            "New password",
            "Repeat the new password",
            "Set the new password"
          ])
          // Two different passwords: the form comes back saying so, and the focus starts again at the top.
          yield* inBrowser(() => page.keyboard.press("Shift+Tab"))
          yield* inBrowser(() => page.keyboard.press("Shift+Tab"))
          yield* type(page, NEW_PASSWORD)
          yield* inBrowser(() => page.keyboard.press("Tab"))
          yield* type(page, `${NEW_PASSWORD}!`)
          yield* pressFor(page, "Enter")
          assert.include(yield* text(page, "[role=alert]"), "not the same")
          yield* checkPage(page, "reset-form-refused")
          assert.deepStrictEqual(yield* tabThrough(page, 1), ["New password"])
          yield* type(page, NEW_PASSWORD)
          yield* inBrowser(() => page.keyboard.press("Tab"))
          yield* type(page, NEW_PASSWORD)
          yield* pressFor(page, "Enter")
          assert.strictEqual(new URL(page.url()).pathname, "/signin")
          assert.include(yield* text(page, "[role=status]"), "Your new password is set")
          yield* checkPage(page, "reset-done")

          yield* inBrowser(() => page.keyboard.press("Tab"))
          yield* type(page, email)
          yield* inBrowser(() => page.keyboard.press("Tab"))
          yield* type(page, NEW_PASSWORD)
          yield* pressFor(page, "Enter")
          assert.strictEqual(new URL(page.url()).pathname, "/sites")

          yield* inBrowser(() => page.goto(link))
          assert.strictEqual(yield* text(page, "h1"), "This link does not work")
          assert.include(yield* text(page, "[role=alert]"), "used already")
          yield* checkPage(page, "reset-used")
        })
      )

      it.scoped(`${at}: without SMTP_URL, the page names the command to ask the operator for`, () =>
        Effect.gen(function* () {
          yield* startClock
          const baseURL = yield* serverWithSettings({})
          const page = yield* newPage({ baseURL, viewport: screen })
          yield* inBrowser(() => page.goto("/signin/forgot"))
          assert.include(yield* text(page, "main"), "cbs account password --email")
          yield* checkPage(page, "reset-no-mail")
        })
      )
    }
  })
})
