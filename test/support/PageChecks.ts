import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Locator, Page } from "playwright-core"
import { inBrowser, screenshot } from "./Browser.js"

/** The two screens every page is checked on: a desktop window and a small phone. */
export const DESKTOP = { width: 1280, height: 800 } as const
export const PHONE = { width: 375, height: 740 } as const
export const SCREENS = [DESKTOP, PHONE] as const
export type Screen = (typeof SCREENS)[number]

const require = createRequire(import.meta.url)

/** axe-core's browser build, read once from the package. */
let axeSource: string | undefined
const axe = () => {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8")
  return axeSource
}

interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown>; readonly failureSummary?: string }>
}

/**
 * axe-core's violations of impact serious or critical on the page as it is now. The script is evaluated through the
 * DevTools protocol, which the pages' CSP (scripts only from the site's own files) does not govern.
 */
export const seriousViolations = (page: Page) =>
  inBrowser(async () => {
    const loaded = await page.evaluate(() => "axe" in globalThis)
    if (!loaded) await page.evaluate(axe())
    const violations = await page.evaluate(async () => {
      const runner = (globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<AxeViolation> }> } }).axe
      const results = await runner.run()
      return results.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary }))
      }))
    })
    return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  })

/**
 * What every page must pass, on whichever screen the test's page has: no horizontal scrolling on a phone, of the page
 * (`scrollWidth` within the 375 px viewport) or of a table in its box, no serious or critical axe-core violation, and a full-page screenshot
 * `test-output/screenshots/<name>-<width>.png` for people to look at.
 */
export const checkPage = (page: Page, name: string) =>
  Effect.gen(function* () {
    const width = page.viewportSize()?.width ?? DESKTOP.width
    // Article bodies are shown in frames: let them finish before the picture is taken.
    yield* inBrowser(() => Promise.all(page.frames().map((frame) => frame.waitForLoadState("load"))))
    yield* screenshot(page, `${name}-${width}`)
    if (width <= PHONE.width) {
      const scrollWidth = yield* inBrowser(() => page.evaluate(() => document.documentElement.scrollWidth))
      assert.isAtMost(scrollWidth, PHONE.width, `${name}: the page is ${scrollWidth} px wide at ${width} px`)
      // Nor does a table scroll sideways in its box: on a phone its rows are cards.
      const wideTables = yield* inBrowser(() =>
        page.evaluate(() =>
          [...document.querySelectorAll(".table-wrap")]
            .filter((box) => box.scrollWidth > box.clientWidth + 1)
            .map((box) => `${box.getAttribute("aria-label")}: ${box.scrollWidth} px in ${box.clientWidth} px`)
        )
      )
      assert.deepStrictEqual(wideTables, [], `${name}: tables that scroll sideways at ${width} px`)
    }
    const violations = yield* seriousViolations(page)
    assert.deepStrictEqual(
      violations.map((v) => `${v.impact} ${v.id}: ${v.help} ${JSON.stringify(v.nodes.slice(0, 3))}`),
      [],
      `${name} at ${width} px`
    )
  })

/**
 * Presses Tab up to `presses` times from the top of the page and lists what got focus: each focused element must be
 * on screen with a visible focus outline. Returns the accessible names in order.
 */
export const tabThrough = (page: Page, presses: number) =>
  Effect.gen(function* () {
    const names: Array<string> = []
    for (let i = 0; i < presses; i++) {
      yield* inBrowser(() => page.keyboard.press("Tab"))
      const focused = yield* inBrowser(() =>
        page.evaluate(() => {
          const element = document.activeElement
          if (element === null || element === document.body) return null
          const box = element.getBoundingClientRect()
          const style = getComputedStyle(element)
          const label =
            element.getAttribute("aria-label") ??
            (element instanceof HTMLInputElement ? (element.labels?.[0]?.textContent ?? element.name) : null) ??
            element.textContent?.replace(/\s+/g, " ").trim() ??
            ""
          return {
            label,
            visible: box.width > 0 && box.height > 0,
            outlined: style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) >= 2
          }
        })
      )
      if (focused === null) break
      assert.isTrue(focused.visible, `focused "${focused.label}" is not on screen`)
      assert.isTrue(focused.outlined, `focused "${focused.label}" shows no focus outline`)
      names.push(focused.label)
    }
    return names
  })

/**
 * Screenshots for people to look at, into `dir`: the whole page as `<name>-<scheme>-<width>.png`, light and dark, and
 * with `detail` (a selector) that part alone too, close enough to read, as `<name>-detail-<scheme>-<width>.png`.
 */
export const shotsIn = (dir: string) => (page: Page, name: string, detail?: string) =>
  inBrowser(async () => {
    mkdirSync(dir, { recursive: true })
    const width = page.viewportSize()?.width ?? 0
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme })
      await page.screenshot({ path: join(dir, `${name}-${colorScheme}-${width}.png`), fullPage: true })
      if (detail !== undefined) {
        await page.locator(detail).screenshot({ path: join(dir, `${name}-detail-${colorScheme}-${width}.png`) })
      }
    }
    await page.emulateMedia({ colorScheme: "light" })
  })

/**
 * Where each part of a compact table's rows (`rows`) is drawn on a phone: whether the status badge (`td.plain`) is
 * beside the row's name, the other values below it, on how many lines, and whether the row fits its width.
 */
export const compactRowLayout = (rows: Locator) =>
  inBrowser(() =>
    rows.evaluateAll((all) =>
      all.map((row) => {
        const box = (element: Element | null) => element!.getBoundingClientRect()
        const name = box(row.querySelector("th"))
        const badge = box(row.querySelector("td.plain"))
        const values = [...row.querySelectorAll("td:not(.plain)")].map((cell) => box(cell))
        return {
          badgeBesideName: badge.top < name.bottom && badge.left >= name.right,
          valuesBelow: values.every((value) => value.top >= name.bottom),
          lines: new Set(values.map((value) => Math.round(value.top))).size,
          fitsIn: row.scrollWidth <= row.clientWidth
        }
      })
    )
  )
