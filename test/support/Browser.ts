import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"

/** Where a Chromium or Chrome is usually installed; `CHROMIUM_PATH` names another. */
const USUAL_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium"
]

/** The browser the tests drive: `CHROMIUM_PATH`, else the first usual path that exists. */
export const CHROMIUM_PATH: string | undefined = [process.env["CHROMIUM_PATH"], ...USUAL_PATHS].find(
  (path): path is string => path !== undefined && path !== "" && existsSync(path)
)

/**
 * Whether the browser tests run. With no browser on the machine they are skipped, with one line saying so, unless
 * `REQUIRE_BROWSER=1` (set by `.ci/run`, which installs Chromium) makes a missing browser a failure.
 */
export const browserAvailable = (): boolean => {
  if (CHROMIUM_PATH !== undefined) return true
  if (process.env["REQUIRE_BROWSER"] === "1") {
    throw new Error("REQUIRE_BROWSER=1 but no Chromium was found: set CHROMIUM_PATH or apt-get install -y chromium")
  }
  process.stdout.write("Browser tests skipped: no Chromium found (set CHROMIUM_PATH to run them).\n")
  return false
}

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

/** Launches Chromium for the file and closes it afterwards. */
export const ChromiumLive = Layer.scoped(
  Chromium,
  Effect.acquireRelease(
    Effect.suspend(() =>
      CHROMIUM_PATH === undefined
        ? Effect.dieMessage("No Chromium found: set CHROMIUM_PATH or apt-get install -y chromium")
        : Effect.promise(() => chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS }))
    ),
    (browser) => Effect.promise(() => browser.close())
  )
)

/**
 * A page in a fresh browser context (its own cookies and storage), closed when the test's scope ends.
 * `viewport` defaults to a desktop window.
 */
export const newPage = (options: {
  readonly baseURL: string
  readonly viewport?: { width: number; height: number }
  /** false: a browser with script turned off, as some people browse. */
  readonly javaScriptEnabled?: boolean
}) =>
  Effect.gen(function* () {
    const browser = yield* Chromium
    const context = yield* Effect.acquireRelease(
      Effect.promise(() =>
        browser.newContext({
          baseURL: options.baseURL,
          viewport: options.viewport ?? { width: 1280, height: 800 },
          javaScriptEnabled: options.javaScriptEnabled ?? true
        })
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
