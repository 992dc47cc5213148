import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { follow, signIn, startClock, text, visitor } from "./support/BrowserFlows.js"
import { checkPage, SCREENS, shotsIn, tabThrough } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"

/** Screenshots of the webhook pages for people to look at, light and dark, at each screen width. */
const SHOTS = process.env["WEBHOOK_SHOTS_DIR"] ?? "/tmp/h5-shots"

const shot = shotsIn(SHOTS)

/** A public address that needs no name service: nothing is fetched when an endpoint is created. */
const PUBLIC_URL = "https://93.184.215.14/hooks/content-service"

/** Attempts of the endpoint's deliveries, as the delivery worker records them. */
const recordedAttempts = (endpoint: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const delivery = (event: number, state: string) =>
        sql<{ id: number }>`insert into webhook_deliveries (endpoint_id, message_id, payload, state, attempts)
          values (${endpoint}, ${`evt_${event}`}, ${JSON.stringify({ id: `evt_${event}`, type: "article.changed", created_at: "2026-11-27T10:00:00Z", data: {} })}::jsonb, ${state}, 1)
          returning id`.pipe(Effect.map(([row]) => row!.id))
      const attempt = (
        id: number,
        minutes: number,
        status: number | null,
        response: string | null,
        error: string | null
      ) =>
        sql`insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, response, error)
          values (${id}, ${endpoint}, now() - make_interval(mins => ${minutes}), ${status}, ${status === null ? 10_000 : 143},
            ${response}, ${error})`
      yield* attempt(yield* delivery(311, "failed"), 90, null, null, "it did not answer within 10 s")
      yield* attempt(
        yield* delivery(312, "failed"),
        60,
        500,
        '{"error":"database unavailable","detail":"the receiver could not store the event; it will be retried"}',
        null
      )
      yield* attempt(yield* delivery(313, "succeeded"), 30, 204, null, null)
    })
  ).pipe(Effect.orDie)

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: webhooks", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(
        `${at}: an endpoint is added by keyboard, its secret shown once; its delivery log resends and tests`,
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { page, email } = yield* visitor(screen)
            yield* signIn(page, email, "/connection")
            assert.strictEqual(yield* text(page, "h2#webhooks"), "Webhooks")
            yield* checkPage(page, "webhooks-empty")

            // By keyboard: the address field, then untick one event type, then the button.
            yield* inBrowser(() => page.getByLabel("Endpoint URL").focus())
            yield* inBrowser(() => page.keyboard.type(PUBLIC_URL))
            const statusChanged = page.getByRole("checkbox", { name: "backlink.status_changed" })
            assert.isTrue(yield* inBrowser(() => statusChanged.isChecked()), "every type is chosen by default")
            yield* inBrowser(() => statusChanged.focus())
            yield* inBrowser(() => page.keyboard.press("Space"))
            assert.isFalse(yield* inBrowser(() => statusChanged.isChecked()))
            yield* inBrowser(() => page.keyboard.press("Tab"))
            assert.strictEqual(
              yield* inBrowser(() => page.evaluate(() => document.activeElement?.textContent?.trim())),
              "Add endpoint"
            )
            yield* follow(page, () => page.keyboard.press("Enter"))
            assert.strictEqual(yield* text(page, "h1"), "Your new webhook endpoint")
            assert.include(yield* text(page, "main"), "will not be shown again")
            const secret = yield* inBrowser(() => page.locator("#webhook-secret").inputValue())
            assert.match(secret, /^whsec_/)
            yield* inBrowser(() =>
              page.getByRole("button", { name: "Copy", exact: true }).waitFor({ state: "visible" })
            )
            yield* checkPage(page, "webhook-created")
            yield* shot(page, "webhook-created")

            yield* inBrowser(() => page.goto("/connection#webhooks"))
            assert.notInclude(yield* inBrowser(() => page.content()), secret)
            const row = page.getByRole("table", { name: "Your webhook endpoints" }).locator("tbody tr").first()
            const rowText = yield* inBrowser(() => row.textContent())
            assert.include(rowText, PUBLIC_URL)
            assert.include(rowText, "Enabled")
            assert.notInclude(rowText, "backlink.status_changed")
            yield* checkPage(page, "webhooks-listed")
            yield* shot(page, "connection-webhooks")

            // Every action of the row is reached by Tab, with a visible focus outline, named for the endpoint.
            const names = yield* tabThrough(page, 60)
            for (const action of ["Deliveries", "Rotate secret", "Disable", "Delete"]) {
              assert.isTrue(
                names.some((name) => name.startsWith(`${action} `) && name.includes(PUBLIC_URL)),
                `${action} in ${names.join(" | ")}`
              )
            }

            const endpoint = Number(/\/connection\/webhooks\/(\d+)\//.exec(yield* inBrowser(() => page.content()))?.[1])
            yield* recordedAttempts(endpoint)
            yield* follow(page, () =>
              page.getByRole("link", { name: `Deliveries to endpoint ${endpoint}, ${PUBLIC_URL}` }).click()
            )
            assert.include(yield* text(page, "h1"), "Deliveries to")
            const attempts = page
              .getByRole("table", { name: "Delivery attempts of the last 30 days" })
              .locator("tbody tr")
            const rows = yield* inBrowser(() => attempts.allInnerTexts())
            assert.strictEqual(rows.length, 3)
            assert.include(rows[0]!, "evt_313")
            assert.include(rows[0]!, "HTTP 204")
            assert.include(rows[1]!, "HTTP 500")
            assert.include(rows[2]!, "it did not answer within 10 s")
            // The answer is folded until opened, by keyboard too.
            const answer = page.locator("details.answer summary").first()
            yield* inBrowser(() => answer.focus())
            yield* inBrowser(() => page.keyboard.press("Enter"))
            assert.include(yield* text(page, "details.answer[open] pre"), "database unavailable")
            yield* checkPage(page, "webhook-deliveries")
            yield* shot(page, "webhook-deliveries")

            yield* inBrowser(() => page.getByRole("button", { name: "Resend evt_312" }).focus())
            yield* follow(page, () => page.keyboard.press("Enter"))
            assert.include(yield* text(page, "[role=status]"), "The delivery was queued again.")
            assert.include(
              yield* inBrowser(() => page.getByRole("table", { name: "Deliveries waiting to be sent" }).textContent()),
              "evt_312"
            )
            yield* follow(page, () => page.getByRole("button", { name: "Send a test event" }).click())
            assert.include(yield* text(page, "[role=status]"), "A test event was queued.")
            assert.include(
              yield* inBrowser(() => page.getByRole("table", { name: "Deliveries waiting to be sent" }).textContent()),
              "webhook.test"
            )
            yield* checkPage(page, "webhook-deliveries-queued")
            yield* shot(page, "webhook-deliveries-queued")

            yield* inBrowser(() => page.goto("/connection#webhooks"))
            yield* follow(page, () =>
              page.getByRole("button", { name: `Rotate secret of endpoint ${endpoint}, ${PUBLIC_URL}` }).click()
            )
            assert.strictEqual(yield* text(page, "h1"), "The endpoint's new secret")
            const rotated = yield* inBrowser(() => page.locator("#webhook-secret").inputValue())
            assert.notStrictEqual(rotated, secret)

            yield* inBrowser(() => page.goto("/connection#webhooks"))
            yield* follow(page, () =>
              page.getByRole("button", { name: `Disable endpoint ${endpoint}, ${PUBLIC_URL}` }).click()
            )
            assert.include(yield* text(page, "[role=status]"), "The webhook endpoint was disabled.")
            assert.include(yield* inBrowser(() => row.textContent()), "Disabled")
            yield* checkPage(page, "webhook-disabled")
            yield* shot(page, "connection-webhook-disabled")

            yield* follow(page, () =>
              page.getByRole("link", { name: `Delete endpoint ${endpoint}, ${PUBLIC_URL}` }).click()
            )
            assert.include(yield* text(page, "h1"), "Delete the webhook endpoint")
            yield* checkPage(page, "webhook-delete-confirm")
            yield* shot(page, "webhook-delete-confirm")
            yield* follow(page, () => page.getByRole("button", { name: "Delete endpoint" }).click())
            assert.include(yield* text(page, "[role=status]"), "The webhook endpoint was deleted")
            assert.include(yield* text(page, "main"), "You have no webhook endpoints yet.")
          })
      )
    }
  })
})
