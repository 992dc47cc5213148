import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { auth } from "@modelcontextprotocol/client"
import { Effect, TestClock } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { ArticleId } from "../src/Domain/Ids.js"
import { allowInBrowser, makeBrowser, postRpc, signInWithSdk, toolsCall, toolsList } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import { open, PASSWORD, signedInAccount } from "./support/WebPages.js"

/**
 * Read-only access: an assistant the person allowed to read only (OAuth scope content:read without content:write),
 * and an API key made read-only. Reads work; every write is refused and changes nothing: an assistant's with the
 * specification's insufficient-scope challenge (so a client can ask the person to allow more), a key's with 403
 * `forbidden`.
 */

const startClock = Effect.suspend(() => TestClock.setTime(Date.now()))

const articleState = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ title: string; featured_image_url: string | null; revisions: number }>`
      select title, featured_image_url, (select count(*)::int from article_revisions where article_id = ${id}) as revisions
      from articles where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  )

/** A signed-in web user with a website and an article. */
const owner = Effect.gen(function* () {
  const account = yield* signedInAccount()
  const site = yield* account.app.makeSite(account.accountId)
  const article = yield* account.app.makeArticle(site, { title: "Pipes in winter", body: "<p>Drain them.</p>" })
  return { ...account, site, article }
})

layer(TestServerLive)("read-only access", (it) => {
  describe("an assistant allowed to read only", () => {
    it.effect(
      "reads, is refused a write with the insufficient-scope challenge, and after a step-up the write lands",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, email, article } = yield* owner
          const mcpUrl = `${app.baseUrl}/mcp`
          const browser = makeBrowser(app.baseUrl)
          const { provider, accessToken } = yield* signInWithSdk({
            mcpUrl,
            browser,
            user: { email, password: PASSWORD },
            access: "read"
          })
          assert.strictEqual(provider.tokens()?.scope, "content:read")

          const listed = yield* postRpc(mcpUrl, accessToken, toolsList)
          assert.strictEqual(listed.status, 200)
          const tools = JSON.parse(listed.text).result.tools as Array<{ name: string }>
          // Only the tools it may call are listed (each entry costs the model context on every turn).
          assert.notInclude(
            tools.map((tool) => tool.name),
            "update_article"
          )
          const read = yield* postRpc(mcpUrl, accessToken, toolsCall("get_article", { article_id: article }))
          assert.strictEqual(read.status, 200)
          assert.notInclude(read.text, '"isError":true')

          const write = toolsCall("update_article", { article_id: article, title: "Pipes in a cold winter" })
          const refused = yield* postRpc(mcpUrl, accessToken, write)
          assert.strictEqual(refused.status, 403, refused.text)
          const challenge = refused.headers.get("www-authenticate") ?? ""
          assert.include(challenge, 'Bearer error="insufficient_scope"')
          assert.include(challenge, 'scope="content:write"')
          assert.include(challenge, "resource_metadata=")
          assert.include(JSON.parse(refused.text).error.message, "Read and edit")
          // A dry run is a write too, and so is a featured image.
          const preview = toolsCall("update_article", { article_id: article, title: "x", dry_run: true })
          assert.strictEqual((yield* postRpc(mcpUrl, accessToken, preview)).status, 403)
          const image = toolsCall("replace_featured_image", {
            article_id: article,
            url: "https://images.example/a.png"
          })
          assert.strictEqual((yield* postRpc(mcpUrl, accessToken, image)).status, 403)
          assert.deepStrictEqual(yield* articleState(article), {
            title: "Pipes in winter",
            featured_image_url: null,
            revisions: 0
          })

          // Step-up: the client asks again for content:write; the person chooses Read and edit.
          const started = yield* Effect.promise(() =>
            auth(provider, { serverUrl: mcpUrl, scope: "content:read content:write", forceReauthorization: true })
          )
          assert.strictEqual(started, "REDIRECT")
          // (In a browser whose session has ended, so the person signs in again, then chooses.)
          const back = yield* allowInBrowser(
            makeBrowser(app.baseUrl),
            provider.authorizationUrls.at(-1)!,
            { email, password: PASSWORD },
            "edit"
          )
          const finished = yield* Effect.promise(() =>
            auth(provider, {
              serverUrl: mcpUrl,
              authorizationCode: back.params.get("code")!,
              iss: back.params.get("iss") ?? ""
            })
          )
          assert.strictEqual(finished, "AUTHORIZED")
          assert.strictEqual(provider.tokens()?.scope, "content:read content:write")
          const landed = yield* postRpc(mcpUrl, provider.tokens()!.access_token, write)
          assert.strictEqual(landed.status, 200, landed.text)
          assert.notInclude(landed.text, '"isError":true')
          assert.strictEqual((yield* articleState(article)).title, "Pipes in a cold winter")
        })
    )

    it.effect("the consent page offers both, the connection page shows each assistant's access and changes it", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, email, browser, article } = yield* owner
        const mcpUrl = `${app.baseUrl}/mcp`
        const { provider, accessToken } = yield* signInWithSdk({
          mcpUrl,
          browser: makeBrowser(app.baseUrl),
          user: { email, password: PASSWORD },
          access: "read"
        })
        const clientId = provider.client!.client_id
        const page = yield* open(browser, "/connection")
        assert.include(page.text, '<option value="read" selected>Read only</option>')
        // Changed on the page to Read and edit: the same token may now write.
        const changed = yield* browser.post(`/connection/assistants/${encodeURIComponent(clientId)}/access`, {
          csrf: page.csrf,
          access: "edit"
        })
        assert.strictEqual(changed.status, 303)
        const write = toolsCall("update_article", { article_id: article, title: "Edited after the change" })
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, write)).status, 200)
        assert.strictEqual((yield* articleState(article)).title, "Edited after the change")
        // And back to Read only: refused again at once.
        const again = yield* open(browser, "/connection")
        assert.include(again.text, '<option value="edit" selected>Read and edit</option>')
        yield* browser.post(`/connection/assistants/${encodeURIComponent(clientId)}/access`, {
          csrf: again.csrf,
          access: "read"
        })
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, write)).status, 403)
        // Without the CSRF token nothing changes.
        const forged = yield* browser.post(`/connection/assistants/${encodeURIComponent(clientId)}/access`, {
          access: "edit"
        })
        assert.strictEqual(forged.status, 403)
        assert.strictEqual((yield* postRpc(mcpUrl, accessToken, write)).status, 403)
      })
    )
  })

  describe("a read-only API key", () => {
    it.effect("reads, and its PUT, PATCH and featured image are 403 forbidden, changing nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, accountId, browser, article } = yield* owner
        const keys = yield* ApiKeys
        const { key } = yield* keys.create({ accountId, name: "reader", isAdmin: false, readOnly: true })
        const call = (method: string, path: string, body?: unknown) =>
          Effect.promise(async () => {
            const res = await fetch(`${app.baseUrl}${path}`, {
              method,
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              ...(body === undefined ? {} : { body: JSON.stringify(body) })
            })
            return { status: res.status, body: (await res.json()) as Record<string, unknown> }
          })
        assert.strictEqual((yield* call("GET", `/api/v1/articles/${article}`)).status, 200)
        for (const [method, path, body] of [
          ["PUT", `/api/v1/articles/${article}`, { title: "No", body: "<p>No.</p>" }],
          ["PATCH", `/api/v1/articles/${article}`, { title: "No" }],
          ["PATCH", `/api/v1/articles/${article}?dry_run=true`, { title: "No" }],
          ["POST", `/api/v1/articles/${article}/featured-image`, { url: "https://images.example/no.png" }]
        ] as const) {
          const refused = yield* call(method, path, body)
          assert.strictEqual(refused.status, 403, `${method} ${path}`)
          assert.strictEqual(refused.body["error"], "forbidden")
          assert.include(refused.body["message"] as string, "may only read")
        }
        assert.deepStrictEqual(yield* articleState(article), {
          title: "Pipes in winter",
          featured_image_url: null,
          revisions: 0
        })
        // The connection page says which keys may only read, and creates one when asked.
        const page = yield* open(browser, "/connection")
        assert.match(page.text, /reader[\s\S]*?Read only/)
        const created = yield* browser.post("/connection/keys", {
          csrf: page.csrf,
          name: `reader-${randomBytes(2).toString("hex")}`,
          read_only: "1"
        })
        assert.strictEqual(created.status, 200)
        const shown = /cbs_[A-Za-z0-9_-]{20,}/.exec(created.text)?.[0]
        assert.isString(shown)
        const byPage = yield* Effect.promise(() =>
          fetch(`${app.baseUrl}/api/v1/articles/${article}`, {
            method: "PATCH",
            headers: { authorization: `Bearer ${shown}`, "content-type": "application/json" },
            body: JSON.stringify({ title: "No" })
          })
        )
        assert.strictEqual(byPage.status, 403)
      })
    )
  })
})
