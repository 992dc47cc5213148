import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { AccountId } from "../src/Domain/Ids.js"
import { clockStarts } from "./support/Clock.js"
import { makeBrowser, postRpc, REDIRECT_URI, signInWithSdk, toolsList } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { apiStatus, assertPageHeaders, open, PASSWORD, rowWith, signedInAccount } from "./support/WebPages.js"

/**
 * Under `layer(...)` the server runs on the test clock, which starts at the epoch. Each test starts at the real
 * time and a minute after the previous one, so that no two share a request-limit window.
 */
const startClock = clockStarts("61 seconds")

const keysOf = (accountId: AccountId) => Effect.flatMap(ApiKeys, (keys) => keys.list(accountId))

/** The key shown on the page that answers its creation. */
const shownKey = (page: string) => /id="new-key" class="secret" type="text" value="(cbs_[^"]+)"/.exec(page)?.[1]

/** A new user, signed in, on the connection page (once the clock is started): the page's CSRF token. */
const connectionPage = Effect.gen(function* () {
  yield* startClock
  const account = yield* signedInAccount()
  const { csrf } = yield* open(account.browser, "/connection")
  return { ...account, csrf }
})

layer(TestServerLive)("web pages: site connection", (it) => {
  describe("API keys", () => {
    it.effect("a created key is shown once, authenticates, and is then listed by its prefix only", () =>
      Effect.gen(function* () {
        const { browser, accountId, csrf } = yield* connectionPage
        const created = yield* browser.post("/connection/keys", { csrf, name: "Reporting script" })
        assert.strictEqual(created.status, 200, created.text)
        assertPageHeaders(created)
        assert.include(created.text, "will not be shown again")
        assert.match(created.text, /<button type="button" data-copy="new-key"[^>]*hidden>Copy<\/button>/)
        const key = shownKey(created.text)
        assert.isString(key)
        assert.strictEqual(yield* apiStatus(key!), 200)

        const listing = yield* open(browser, "/connection")
        const row = rowWith(listing.text, "Reporting script")
        assert.include(row, `<code>${key!.slice(0, 12)}…</code>`)
        assert.include(row, "Active")
        assert.notInclude(listing.text, key!)
        const stored = (yield* keysOf(accountId)).find((k) => k.name === "Reporting script")
        assert.isFalse(stored!.is_admin)
      })
    )

    it.effect("Revoke asks first, on a page that names the key; the key is revoked only by that page's button", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, accountId, key } = yield* signedInAccount()
        const [own] = yield* keysOf(accountId)
        const listing = yield* open(browser, "/connection")
        assert.include(rowWith(listing.text, own!.prefix), `href="/connection/keys/${own!.id}/revoke"`)
        const confirm = yield* open(browser, `/connection/keys/${own!.id}/revoke`)
        assert.include(confirm.text, `<h1>Revoke the key “<bdi>${own!.name}</bdi>”?</h1>`)
        assert.include(confirm.text, `<code>${own!.prefix}…</code>`)
        assert.match(confirm.text, /<form method="post" action="\/connection\/keys\/\d+\/revoke">/)
        assert.strictEqual(yield* apiStatus(key), 200)
        const other = yield* signedInAccount()
        assert.strictEqual((yield* other.browser.get(`/connection/keys/${own!.id}/revoke`)).status, 404)
        const revoked = yield* browser.post(`/connection/keys/${own!.id}/revoke`, { csrf: confirm.csrf })
        assert.strictEqual(revoked.status, 303)
        assert.strictEqual(yield* apiStatus(key), 401)
        // A revoked key has nothing left to confirm.
        assert.strictEqual((yield* browser.get(`/connection/keys/${own!.id}/revoke`)).status, 404)
      })
    )

    it.effect("a revoked key is refused by the API with 401 and listed as revoked", () =>
      Effect.gen(function* () {
        const { browser, accountId, key, csrf } = yield* connectionPage
        const id = (yield* keysOf(accountId))[0]!.id
        const revoked = yield* browser.post(`/connection/keys/${id}/revoke`, { csrf })
        assert.strictEqual(revoked.status, 303, revoked.text)
        assert.strictEqual(revoked.location, "/connection?done=key-revoked#keys")
        assert.strictEqual(yield* apiStatus(key), 401)
        const listing = yield* open(browser, "/connection?done=key-revoked")
        assert.include(listing.text, "The key was revoked.")
        assert.include(rowWith(listing.text, "<code>cbs_"), "Revoked <time")
      })
    )

    it.effect("keys revoked more than 30 days ago are folded away under their count; those revoked since stay", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, browser, accountId } = yield* signedInAccount()
        yield* Effect.replicateEffect(app.makeKey(accountId), 3)
        const keys = yield* keysOf(accountId)
        const now = yield* Clock.currentTimeMillis
        const revokedDaysAgo = (index: number, days: number) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`update api_keys set revoked_at = ${new Date(now - days * 86_400_000).toISOString()}::timestamptz
              where id = ${keys[index]!.id}`.pipe(Effect.orDie)
          )
        yield* revokedDaysAgo(1, 31)
        yield* revokedDaysAgo(2, 400)
        yield* revokedDaysAgo(3, 29)
        const page = yield* open(browser, "/connection")
        const [table, folded = ""] = page.text.split('<details class="old-keys">')
        assert.include(folded, "<summary>2 keys revoked more than 30 days ago</summary>")
        for (const index of [1, 2]) {
          assert.notInclude(table, keys[index]!.prefix)
          assert.include(folded, keys[index]!.prefix)
        }
        // In use, or revoked within the 30 days: in the table.
        for (const index of [0, 3]) assert.include(table, keys[index]!.prefix)
        assert.notInclude(folded, keys[3]!.prefix)
      })
    )

    it.effect("create and revoke with a missing or wrong CSRF token are 403 and change nothing", () =>
      Effect.gen(function* () {
        const { browser, accountId, key, csrf } = yield* connectionPage
        const id = (yield* keysOf(accountId))[0]!.id
        for (const fields of [{}, { csrf: "" }, { csrf: `${csrf.slice(1)}x` }, { csrf: "not-a-token" }]) {
          const create = yield* browser.post("/connection/keys", { ...fields, name: "Forged" })
          assert.strictEqual(create.status, 403, create.text)
          assertPageHeaders(create)
          assert.isUndefined(shownKey(create.text))
          const revoke = yield* browser.post(`/connection/keys/${id}/revoke`, fields)
          assert.strictEqual(revoke.status, 403, revoke.text)
        }
        const keys = yield* keysOf(accountId)
        assert.strictEqual(keys.length, 1)
        assert.isNull(keys[0]!.revoked_at)
        assert.strictEqual(yield* apiStatus(key), 200)
      })
    )

    it.effect("revoking another account's key is 404 and the key keeps working; a nameless key is refused", () =>
      Effect.gen(function* () {
        const { app, browser, accountId, csrf } = yield* connectionPage
        const other = yield* app.makeAccount()
        const theirs = (yield* keysOf(other.accountId))[0]!.id
        for (const path of [`/connection/keys/${theirs}/revoke`, "/connection/keys/abc/revoke"]) {
          const reply = yield* browser.post(path, { csrf })
          assert.strictEqual(reply.status, 404, path)
          assertPageHeaders(reply)
        }
        assert.strictEqual(yield* apiStatus(other.key), 200)
        const nameless = yield* browser.post("/connection/keys", { csrf, name: "   " })
        assert.strictEqual(nameless.status, 400)
        assert.include(nameless.text, 'role="alert" id="key-error"')
        assert.strictEqual((yield* keysOf(accountId)).length, 1)
      })
    )

    it.effect("a NUL in a form field or in the address is 422 and changes nothing", () =>
      Effect.gen(function* () {
        const { browser, accountId, csrf } = yield* connectionPage
        const named = yield* browser.post("/connection/keys", { csrf, name: "a\u0000b" })
        assert.strictEqual(named.status, 422)
        assertPageHeaders(named)
        assert.include(named.text, "NUL")
        for (const path of ["/connection/assistants/%00/revoke", "/connection/keys/1%00/revoke"]) {
          const posted = yield* browser.post(path, { csrf })
          assert.strictEqual(posted.status, 422, path)
          const asked = yield* browser.get(path)
          assert.strictEqual(asked.status, 422, path)
          assertPageHeaders(asked)
        }
        assert.strictEqual((yield* keysOf(accountId)).length, 1)
      })
    )

    it.effect("signed out, a key cannot be created: the form sends the visitor to sign in", () =>
      Effect.gen(function* () {
        yield* startClock
        const app = yield* TestApp
        const { accountId } = yield* app.makeAccount()
        const reply = yield* makeBrowser(app.baseUrl).post("/connection/keys", { name: "Anonymous" })
        assert.strictEqual(reply.status, 303)
        assert.strictEqual(reply.location, "/signin?return_to=%2Fconnection")
        assert.strictEqual((yield* keysOf(accountId)).length, 1)
      })
    )
  })

  describe("assistants", () => {
    it.effect("the page gives the MCP address; disconnecting an assistant ends its access token on /mcp", () =>
      Effect.gen(function* () {
        yield* startClock
        const app = yield* TestApp
        const mcpUrl = `http://localhost:${new URL(app.baseUrl).port}/mcp`
        const { browser, email } = yield* signedInAccount()
        const { provider, accessToken } = yield* signInWithSdk({
          mcpUrl,
          browser: makeBrowser(app.baseUrl),
          user: { email, password: PASSWORD }
        })
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, toolsList)).status, 200)

        // The address as this browser reached the service (it has no PUBLIC_BASE_URL): 127.0.0.1 here.
        const page = yield* open(browser, "/connection")
        assert.include(page.text, `value="${app.baseUrl}/mcp"`)
        // A plain word that a hosted assistant cannot use it.
        assert.include(page.text, "they need\na public <strong>https</strong> address")
        const atLocalhost = yield* open(browser, mcpUrl.replace("/mcp", "/connection"))
        assert.include(atLocalhost.text, `value="${mcpUrl}"`)
        const row = rowWith(page.text, "MCP Test Assistant")
        const clientId = provider.client!.client_id
        // Told apart by its client id and return address; its access was used a moment ago.
        assert.include(row, `<code>${clientId}</code>`)
        assert.include(row, `<code>${REDIRECT_URI}</code>`)
        assert.strictEqual(row.match(/<time datetime=/g)?.length, 2, row)
        // Disconnect asks first: a page that names the assistant, with the button that does it.
        assert.include(row, `href="/connection/assistants/${clientId}/revoke"`)
        const confirm = yield* open(browser, `/connection/assistants/${clientId}/revoke`)
        assert.include(confirm.text, "<h1>Disconnect <bdi>MCP Test Assistant</bdi>?</h1>")
        assert.include(confirm.text, `action="/connection/assistants/${clientId}/revoke"`)

        // Without the CSRF token nothing happens; for another user the assistant does not exist.
        const forged = yield* browser.post(`/connection/assistants/${clientId}/revoke`, { csrf: "forged" })
        assert.strictEqual(forged.status, 403)
        const stranger = yield* signedInAccount()
        const { csrf } = yield* open(stranger.browser, "/connection")
        const foreign = yield* stranger.browser.post(`/connection/assistants/${clientId}/revoke`, { csrf })
        assert.strictEqual(foreign.status, 404)
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, toolsList)).status, 200)

        const done = yield* browser.post(`/connection/assistants/${clientId}/revoke`, { csrf: page.csrf })
        assert.strictEqual(done.status, 303, done.text)
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, toolsList)).status, 401)
        // The refresh token went with it.
        const refreshed = yield* app.fetch("/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: provider.tokens()!.refresh_token!,
            client_id: clientId
          }).toString()
        })
        assert.strictEqual(refreshed.status, 400)
        assert.strictEqual((yield* Effect.promise(() => refreshed.json())).error, "invalid_grant")
        const after = yield* open(browser, "/connection?done=assistant-disconnected")
        assert.notInclude(after.text, "MCP Test Assistant")
        assert.include(after.text, "No assistant is connected to your account.")
        const again = yield* browser.post(`/connection/assistants/${clientId}/revoke`, { csrf: page.csrf })
        assert.strictEqual(again.status, 404)
      })
    )
  })
})
