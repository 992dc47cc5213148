// @tags: runtime
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { AccountId, ArticleId, SiteId } from "../src/Domain/Ids.js"
import { cbs } from "./support/Cbs.js"
import { tempFile } from "./support/CbsProcess.js"
import { clockStarts } from "./support/Clock.js"
import { request } from "./support/Http.js"
import { makeBrowser, REDIRECT_URI, signInWithSdk } from "./support/McpClient.js"
import { sharedMcpSession } from "./support/McpSession.js"
import { siteOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"
import { open, PASSWORD, signedInAccount } from "./support/WebPages.js"

/**
 * One-line text (titles, reasons, meta descriptions, key names, assistants' names) refuses control characters
 * through every door: REST, the tools, the pages' forms, `cbs`, and client registration.
 */

/** Each test starts a minute after the previous one: the shared session never meets its request limit. */
const startClock = clockStarts("61 seconds")

const session = sharedMcpSession()

/** A reason that reads "txt.exe fixed typo" where it is shown raw. */
const SPOOFED_REASON = "\u202Eexe.txt\u202C fixed typo"

/** A REST write with an API key; the status and the JSON body. */
const write = (key: string, method: "PUT" | "PATCH", id: ArticleId, body: unknown) =>
  request(method, `/api/v1/articles/${id}`, { bearer: key, json: body })

/** The article as stored, and how many revisions it has. */
const stored = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [article] = yield* sql<{ title: string | null; body: string; meta_description: string | null }>`
      select title, body, meta_description from articles where id = ${id}`.pipe(Effect.orDie)
    const [count] = yield* sql<{ n: number }>`
      select count(*)::int as n from article_revisions where article_id = ${id}`.pipe(Effect.orDie)
    return { ...article!, revisions: count!.n }
  })

const ONE_TO_TWO = [{ find: "one", replace: "two" }]

/**
 * An article titled "Kept" in `siteId`, and a check that it is still as made: nothing
 * saved, no revision.
 */
const keptArticle = (siteId: SiteId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const id = yield* app.makeArticle(siteId, { title: "Kept", body: "<p>one</p>" })
    const before = yield* stored(id)
    return { id, assertUnchanged: Effect.map(stored(id), (now) => assert.deepStrictEqual(now, before)) }
  })

/** A REST answer refusing `field` for holding the control character `found`. */
const assertRefused = (
  res: { readonly status: number; readonly body: Record<string, unknown> },
  field: string,
  found: string
) => {
  assert.strictEqual(res.status, 422, JSON.stringify(res.body))
  assert.strictEqual(res.body["error"], "validation_error")
  assert.strictEqual(res.body["message"], oneLineMessage(field, found))
}

const keyNames = (accountId: AccountId) =>
  Effect.map(
    Effect.flatMap(ApiKeys, (keys) => keys.list(accountId)),
    (keys) => keys.map((key) => key.name)
  )

const oneLineMessage = (field: string, found: string) =>
  `${field}: must be one line of text without control characters (found ${found})`

layer(TestServerLive.pipe(Layer.merge(NodeContext.layer)))("one-line text", (it) => {
  describe("REST and the tools", () => {
    it.effect("PATCH with a reason holding U+202E is 422 validation_error naming reason, and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId } = yield* siteOfNewAccount
        const { id, assertUnchanged } = yield* keptArticle(siteId)
        const res = yield* write(key, "PATCH", id, { replacements: ONE_TO_TWO, reason: SPOOFED_REASON })
        assertRefused(res, "reason", "U+202E")
        yield* assertUnchanged
      })
    )

    it.effect("a title with ESC, or a meta description with a line break, is 422 naming the field", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId } = yield* siteOfNewAccount
        const { id, assertUnchanged } = yield* keptArticle(siteId)
        const title = yield* write(key, "PUT", id, { title: "Red\u001b[31m alert", body: "<p>two</p>" })
        assertRefused(title, "title", "U+001B")
        assertRefused(
          yield* write(key, "PATCH", id, { meta_description: "first\nsecond" }),
          "meta_description",
          "U+000A"
        )
        yield* assertUnchanged
        // The same text without the controls is taken.
        const fine = yield* write(key, "PUT", id, { title: "Red alert", body: "<p>two</p>", reason: "exe.txt fixed" })
        assert.strictEqual(fine.status, 200, JSON.stringify(fine.body))
      })
    )

    it.effect("update_article with such a reason is a tool error validation_error naming reason", () =>
      Effect.gen(function* () {
        yield* startClock
        const { siteId, callTool } = yield* session
        const { id, assertUnchanged } = yield* keptArticle(siteId)
        const reply = yield* callTool("update_article", {
          article_id: id,
          replacements: ONE_TO_TWO,
          reason: SPOOFED_REASON
        })
        assert.isTrue(reply.isError, JSON.stringify(reply.text))
        assert.strictEqual(reply.text.error, "validation_error")
        assert.strictEqual(reply.text.message, oneLineMessage("reason", "U+202E"))
        yield* assertUnchanged
      })
    )
  })

  describe("the editor", () => {
    it.effect(
      "a save whose reason or title holds a control character is refused naming the field, and saves nothing",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, browser, accountId } = yield* signedInAccount()
          const { id, assertUnchanged } = yield* keptArticle(yield* app.makeSite(accountId))
          const page = yield* open(browser, `/articles/${id}`)
          for (const [fields, message] of [
            [{ title: "Kept", reason: SPOOFED_REASON }, oneLineMessage("reason", "U+202E")],
            [{ title: "Red\u001b[31m alert", reason: "" }, oneLineMessage("title", "U+001B")]
          ] as const) {
            const reply = yield* browser.post(`/articles/${id}/edit`, {
              csrf: page.csrf,
              meta_description: "",
              body: "<p>two</p>",
              ...fields
            })
            assert.strictEqual(reply.status, 422)
            assert.include(reply.text, message)
          }
          yield* assertUnchanged
        })
    )
  })

  describe("API key names", () => {
    it.effect("the connection page refuses a key name with a bidirectional override, says why, stores nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, accountId } = yield* signedInAccount()
        const before = yield* keyNames(accountId)
        const { csrf } = yield* open(browser, "/connection")
        const refused = yield* browser.post("/connection/keys", { csrf, name: "\u202Ecod.exe" })
        assert.strictEqual(refused.status, 400)
        assert.include(refused.text, `The key was not created: ${oneLineMessage("name", "U+202E")}.`)
        assert.notInclude(refused.text, "will not be shown again")
        assert.notInclude(refused.text, "\u202E")
        assert.deepStrictEqual(yield* keyNames(accountId), before)
      })
    )

    it.effect("cbs key create --name with a control character exits 2 naming the field and creates no key", () =>
      Effect.gen(function* () {
        yield* startClock
        const app = yield* TestApp
        const { accountId, email } = yield* app.makeAccount()
        const before = yield* keyNames(accountId)
        const result = yield* cbs("key", "create", "--account", email, "--name", "\u202Ecod.exe")
        assert.isFalse(result.ok)
        assert.strictEqual(result.code, 2)
        assert.strictEqual(result.stderr, `cbs: ${oneLineMessage("name", "U+202E")}`)
        assert.notInclude(result.stdout, "API key")
        assert.deepStrictEqual(yield* keyNames(accountId), before)
      })
    )

    it.scoped("cbs import refuses an article title with a control character, naming the field", () =>
      Effect.gen(function* () {
        yield* startClock
        const website = "https://one-line-import.example.com"
        const file = yield* tempFile(
          "import.json",
          JSON.stringify({
            accounts: [
              {
                email: "one-line-import@example.com",
                name: "Import Ltd",
                sites: [
                  {
                    website_url: website,
                    articles: [{ title: "Bell\u0007", url: `${website}/a`, body: "<p>One two</p>" }]
                  }
                ]
              }
            ]
          })
        )
        const result = yield* cbs("import", file)
        assert.isFalse(result.ok)
        assert.include(result.stderr, "accounts[0].sites[0].articles[0].title")
        assert.include(result.stderr, "must be one line of text without control characters (found U+0007)")
        const sql = yield* SqlClient.SqlClient
        const sites = yield* sql<{ n: number }>`
          select count(*)::int as n from sites where website_url = ${website}`.pipe(Effect.orDie)
        assert.strictEqual(sites[0]!.n, 0)
      })
    )
  })

  describe("names stored before the rule", () => {
    it.effect(
      "the connection page shows a key's and an assistant's stored controls as markers, each name in <bdi>",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const app = yield* TestApp
          const sql = yield* SqlClient.SqlClient
          const { browser, accountId, email } = yield* signedInAccount()
          yield* signInWithSdk({
            mcpUrl: `${app.baseUrl}/mcp`,
            browser: makeBrowser(app.baseUrl),
            user: { email, password: PASSWORD }
          })
          const accounts = yield* Accounts
          const user = Option.getOrThrow(yield* accounts.findByEmail(email))
          yield* sql`update api_keys set name = ${"\u202Ecod.exe"} where account_id = ${accountId}`.pipe(Effect.orDie)
          yield* sql`update oauth_clients set client_name = ${"Helper\u001b[8m\u2066"}
          where client_id in (select client_id from oauth_grants where user_id = ${user.user_id})`.pipe(Effect.orDie)
          const page = yield* open(browser, "/connection")
          assert.include(page.text, "<bdi>⟨U+202E⟩cod.exe</bdi>")
          assert.include(page.text, "<bdi>Helper⟨U+001B⟩[8m⟨U+2066⟩</bdi>")
          for (const control of ["\u001b", "\u202e", "\u2066"]) assert.notInclude(page.text, control)
        })
    )

    it.effect("the Allow page shows an assistant's stored controls as markers, its name in <bdi>", () =>
      Effect.gen(function* () {
        yield* startClock
        const sql = yield* SqlClient.SqlClient
        const { browser } = yield* signedInAccount()
        const registered = yield* browser.postJson("/register", {
          redirect_uris: [REDIRECT_URI],
          client_name: "Helper",
          token_endpoint_auth_method: "none"
        })
        assert.strictEqual(registered.status, 201, registered.text)
        const clientId = (JSON.parse(registered.text) as { readonly client_id: string }).client_id
        yield* sql`update oauth_clients set client_name = ${"\u202EtnatsissA"} where client_id = ${clientId}`.pipe(
          Effect.orDie
        )
        const query = new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: "a".repeat(43),
          code_challenge_method: "S256",
          state: "one-line"
        })
        const consent = yield* browser.get(`/authorize?${query}`)
        assert.strictEqual(consent.status, 200, consent.text)
        assert.include(consent.text, "<h1>Allow <bdi>⟨U+202E⟩tnatsissA</bdi> to use your account?</h1>")
        assert.include(consent.text, "<strong><bdi>⟨U+202E⟩tnatsissA</bdi></strong>")
        assert.notInclude(consent.text, "\u202e")
      })
    )
  })

  describe("client registration", () => {
    it.effect(
      "a client_name with a control character is 400 invalid_client_metadata naming it, nothing registered",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const app = yield* TestApp
          const sql = yield* SqlClient.SqlClient
          const clients = sql<{ n: number }>`select count(*)::int as n from oauth_clients`.pipe(
            Effect.map((rows) => rows[0]!.n),
            Effect.orDie
          )
          const before = yield* clients
          const browser = makeBrowser(app.baseUrl)
          for (const [name, found] of [
            ["\u202EtnatsissA", "U+202E"],
            ["Assistant\u001b]0;title\u0007", "U+001B"],
            ["Two\nlines", "U+000A"]
          ] as const) {
            const reply = yield* browser.postJson("/register", { redirect_uris: [REDIRECT_URI], client_name: name })
            assert.strictEqual(reply.status, 400, reply.text)
            const body = JSON.parse(reply.text) as Record<string, unknown>
            assert.strictEqual(body["error"], "invalid_client_metadata")
            assert.strictEqual(
              body["error_description"],
              `client_name must be one line of text without control characters (found ${found}).`
            )
          }
          assert.strictEqual(yield* clients, before)
        })
    )
  })
})
