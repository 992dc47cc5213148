import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"

/** Debian's Chromium; `.ci/run` installs it when it is missing. */
export const CHROMIUM_PATH = "/usr/bin/chromium"

/** Where the browser tests write a screenshot of every page they visit (ignored by git). */
export const SCREENSHOTS_DIR = fileURLToPath(new URL("../../test-output/screenshots", import.meta.url))

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run"
]

/** One headless Chromium shared by the tests of a file; each test opens its own context. */
export class Chromium extends Context.Tag("test/Chromium")<Chromium, Browser>() {}

/**
 * Launches Chromium for the file and closes it afterwards. A missing browser is a failure, not a skip: the
 * browser tests are part of the suite.
 */
export const ChromiumLive = Layer.scoped(
  Chromium,
  Effect.acquireRelease(
    Effect.suspend(() =>
      existsSync(CHROMIUM_PATH)
        ? Effect.promise(() => chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS }))
        : Effect.dieMessage(
            `Chromium is not installed at ${CHROMIUM_PATH}; the browser tests need it: apt-get install -y chromium`
          )
    ),
    (browser) => Effect.promise(() => browser.close())
  )
)

/**
 * A page in a fresh browser context (its own cookies and storage), closed when the test's scope ends.
 * `viewport` defaults to a desktop window.
 */
export const newPage = (options: { readonly baseURL: string; readonly viewport?: { width: number; height: number } }) =>
  Effect.gen(function* () {
    const browser = yield* Chromium
    const context = yield* Effect.acquireRelease(
      Effect.promise(() =>
        browser.newContext({ baseURL: options.baseURL, viewport: options.viewport ?? { width: 1280, height: 800 } })
      ),
      (context) => Effect.promise(() => context.close())
    )
    return yield* Effect.promise(() => context.newPage())
  })

/** Steps of a test that talk to the browser: a rejected promise fails the test with its error. */
export const inBrowser = <A>(run: () => Promise<A>) => Effect.promise(run)

/** A full-page screenshot of what the page shows now, as `test-output/screenshots/<name>.png`. */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(() => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true })
    return page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true })
  })
