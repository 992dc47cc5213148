import { assert, describe, layer } from "@effect/vitest"
import { auth } from "@modelcontextprotocol/client"
import { Effect, Layer } from "effect"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { follow, startClock, text, visitor } from "./support/BrowserFlows.js"
import { makeBrowser, postRpc, REDIRECT_URI, signInWithSdk, TestOAuthProvider, toolsList } from "./support/McpClient.js"
import { checkPage, SCREENS } from "./support/PageChecks.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { apiStatus, PASSWORD } from "./support/WebPages.js"

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: site connection", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(`${at}: a key created in the page is shown once and works; Revoke asks first, then refuses it`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email } = yield* visitor(screen)
          yield* inBrowser(() => page.goto("/connection"))
          yield* inBrowser(() => page.getByLabel("E-mail").fill(email))
          yield* inBrowser(() => page.getByLabel("Password").fill(PASSWORD))
          yield* follow(page, () => page.getByRole("button", { name: "Sign in" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Site connection")
          yield* checkPage(page, "connection")

          yield* inBrowser(() => page.getByLabel("Key name").fill("Browser script"))
          yield* follow(page, () => page.getByRole("button", { name: "Create key" }).click())
          assert.include(yield* text(page, "main"), "will not be shown again")
          const key = yield* inBrowser(() => page.locator("#new-key").inputValue())
          assert.match(key, /^cbs_/)
          const copy = page.getByRole("button", { name: "Copy", exact: true })
          yield* inBrowser(() => copy.waitFor({ state: "visible" }))
          yield* checkPage(page, "key-created")
          assert.strictEqual(yield* apiStatus(key), 200)

          yield* inBrowser(() => page.goto("/connection"))
          assert.notInclude(yield* inBrowser(() => page.content()), key)
          yield* follow(page, () => page.getByRole("link", { name: "Revoke key Browser script" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Revoke the key “Browser script”?")
          yield* checkPage(page, "revoke-key-confirm")
          assert.strictEqual(yield* apiStatus(key), 200, "asking changes nothing")
          yield* follow(page, () => page.getByRole("button", { name: "Revoke key" }).click())
          assert.strictEqual(new URL(page.url()).search, "?done=key-revoked")
          assert.include(yield* text(page, "[role=status]"), "The key was revoked.")
          yield* checkPage(page, "key-revoked")
          assert.strictEqual(yield* apiStatus(key), 401)
        })
      )

      it.scoped(`${at}: an assistant is allowed in the browser; same-named ones are told apart; Disconnect asks`, () =>
        Effect.gen(function* () {
          yield* startClock
          const app = yield* TestApp
          const { page, email } = yield* visitor(screen)
          const mcpUrl = `http://localhost:${new URL(app.baseUrl).port}/mcp`
          // One assistant connected elsewhere, one through this browser's sign-in and consent pages.
          const first = yield* signInWithSdk({
            mcpUrl,
            browser: makeBrowser(app.baseUrl),
            user: { email, password: PASSWORD }
          })
          const provider = new TestOAuthProvider()
          assert.strictEqual(yield* Effect.promise(() => auth(provider, { serverUrl: mcpUrl })), "REDIRECT")
          yield* inBrowser(() => page.goto(provider.authorizationUrls[0]!.toString()))
          yield* inBrowser(() => page.getByLabel("E-mail").fill(email))
          yield* inBrowser(() => page.getByLabel("Password").fill(PASSWORD))
          yield* follow(page, () => page.getByRole("button", { name: "Sign in" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Allow MCP Test Assistant to use your account?")
          yield* checkPage(page, "consent")
          // Allow answers with a redirect to the assistant: its address carries the code. Nothing listens there, so the
          // redirect is read here and the browser shown a page in its place (a navigation to the dead address could
          // still be failing when the next one starts).
          let location = ""
          yield* inBrowser(() =>
            page.route("**/authorize", async (route) => {
              if (route.request().method() !== "POST") return route.continue()
              const answer = await route.fetch({ maxRedirects: 0 })
              assert.strictEqual(answer.status(), 302)
              location = answer.headers()["location"] ?? ""
              await route.fulfill({ contentType: "text/plain", body: "Back to the assistant." })
            })
          )
          yield* follow(page, () => page.getByRole("button", { name: "Allow" }).click())
          assert.isTrue(location.startsWith(REDIRECT_URI), location)
          const code = new URL(location).searchParams.get("code")
          assert.isString(code)
          const iss = new URL(location).searchParams.get("iss") ?? ""
          assert.strictEqual(
            yield* Effect.promise(() => auth(provider, { serverUrl: mcpUrl, authorizationCode: code!, iss })),
            "AUTHORIZED"
          )
          const second = provider.tokens()!.access_token
          assert.strictEqual((yield* postRpc(mcpUrl, second, toolsList)).status, 200)

          yield* inBrowser(() => page.goto(`${new URL(mcpUrl).origin}/connection`))
          const rows = yield* inBrowser(() =>
            page
              .getByRole("table", { name: "Assistants that can use your account" })
              .locator("tbody tr")
              .allInnerTexts()
          )
          assert.strictEqual(rows.length, 2)
          // The same name twice (the order of two connected at once is by client id), told apart by the client id.
          for (const client of [first.provider.client!.client_id, provider.client!.client_id]) {
            const row = rows.find((candidate) => candidate.includes(client))
            assert.isDefined(row, `${client} in\n${rows.join("\n")}`)
            assert.include(row!, "MCP Test Assistant")
            assert.include(row!, REDIRECT_URI)
          }
          yield* checkPage(page, "connection-assistants")

          yield* follow(page, () =>
            page
              .getByRole("link", { name: `Disconnect MCP Test Assistant, client id ${provider.client!.client_id}` })
              .click()
          )
          assert.strictEqual(yield* text(page, "h1"), "Disconnect MCP Test Assistant?")
          yield* checkPage(page, "disconnect-confirm")
          assert.strictEqual((yield* postRpc(mcpUrl, second, toolsList)).status, 200, "asking changes nothing")
          yield* follow(page, () => page.getByRole("button", { name: "Disconnect assistant" }).click())
          assert.include(yield* text(page, "[role=status]"), "The assistant was disconnected.")
          assert.strictEqual((yield* postRpc(mcpUrl, second, toolsList)).status, 401)
          assert.strictEqual((yield* postRpc(mcpUrl, first.accessToken, toolsList)).status, 200)
        })
      )
    }
  })
})
