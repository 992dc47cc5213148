import { randomBytes } from "node:crypto"
import { assert } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { readRowsWritten } from "./CallLogBatches.js"
import {
  type Browser,
  callToolRaw,
  hiddenField,
  makeBrowser,
  type Reply,
  signInWithSdk,
  submitSignIn
} from "./McpClient.js"
import { TestApp } from "./TestServer.js"

export const PASSWORD = "correct horse battery staple"

/**
 * Markup as it is seen: without the words of a change's marks that only screen readers read (`[removed: `, `]`), so
 * that a test can spell out the marks themselves (`<del>old</del><ins>new</ins>`).
 */
export const seen = (markup: string) =>
  markup.replace(/<span class="visually-hidden">(?:\[(?:removed|inserted): |\])<\/span>/g, "")

export const CSP =
  "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

/** A new account whose user has signed in, in a browser of its own. */
export const signedInAccount = (options: { readonly admin?: boolean } = {}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const email = `web-${randomBytes(4).toString("hex")}@example.com`
    const account = yield* app.makeAccount({ email, password: PASSWORD, admin: options.admin ?? false })
    const browser = makeBrowser(app.baseUrl)
    const reply = yield* submitSignIn(browser, { email, password: PASSWORD, return_to: "/sites" })
    assert.strictEqual(reply.status, 303, reply.text)
    assert.strictEqual(reply.location, "/sites")
    return { app, browser, ...account }
  })

/** A page that must be there: 200, with the page's CSRF token. */
export const open = (browser: Browser, path: string) =>
  Effect.gen(function* () {
    const reply = yield* browser.get(path)
    assert.strictEqual(reply.status, 200, `GET ${path}: ${reply.text}`)
    assertPageHeaders(reply)
    return { ...reply, csrf: hiddenField(reply.text, "csrf") ?? "" }
  })

/** The security headers every page carries. */
export const assertPageHeaders = (reply: Pick<Reply, "headers">) => {
  assert.strictEqual(reply.headers.get("content-security-policy"), CSP)
  assert.strictEqual(reply.headers.get("x-frame-options"), "DENY")
  assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff")
  assert.strictEqual(reply.headers.get("referrer-policy"), "same-origin")
  assert.strictEqual(reply.headers.get("cache-control"), "no-store")
  assert.match(reply.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/)
}

/** The table row (`<tr>…</tr>`) that contains `text`. */
export const rowWith = (page: string, text: string) => {
  const row = (page.match(/<tr>[\s\S]*?<\/tr>/g) ?? []).find((candidate) => candidate.includes(text))
  assert.isDefined(row, `no row with ${text}`)
  return row!
}

/** How many rows a page's table shows. */
export const rowCount = (page: string) => (page.match(/<tr><th scope="row">/g) ?? []).length

/** The numbers of a row's numeric cells. */
export const numbersIn = (row: string) => [...row.matchAll(/<td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1]))

/** The value shown under a heading of the website page's counts. */
export const statOf = (page: string, label: string) => {
  const match = new RegExp(`<dt>${label}</dt><dd>(\\d+)</dd>`).exec(page)
  assert.isNotNull(match, `no count ${label}`)
  return Number(match![1])
}

/** The article ids linked from a page, in order. */
export const articleIds = (page: string) => [...page.matchAll(/href="\/articles\/(\d+)"/g)].map((m) => Number(m[1]))

/** An ISO timestamp on `day` of the current UTC month (`monthsAgo` months back). */
export const inMonth = (day: number, monthsAgo = 0) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, day, 10)).toISOString()
}

/** An API request with a key; its status. */
export const apiStatus = (key: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const reply = yield* app.fetch("/api/v1/sites", { headers: { authorization: `Bearer ${key}` } })
    yield* Effect.promise(() => reply.text())
    return reply.status
  })

/**
 * Reads the article once through the API (with `key`) and once through the MCP tool get_article (signed in as
 * `email`), a second apart, so that its activity log has one call of each.
 */
export const readByApiAndMcp = (options: {
  readonly articleId: number
  readonly key: string
  readonly email: string
}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const api = yield* app.fetch(`/api/v1/articles/${options.articleId}`, {
      headers: { authorization: `Bearer ${options.key}` }
    })
    yield* Effect.promise(() => api.text())
    assert.strictEqual(api.status, 200)
    const { mcpUrl, accessToken } = yield* assistantOf(options.email)
    yield* TestClock.adjust("1 second")
    const tool = yield* callToolRaw(mcpUrl, accessToken, "get_article", { article_id: options.articleId })
    assert.isFalse(tool.isError)
    yield* readRowsWritten
  })

/** An assistant of the user `email` (password PASSWORD), signed in through the SDK: its MCP address and token. */
export const assistantOf = (email: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const mcpUrl = `${app.baseUrl}/mcp`
    const { accessToken } = yield* signInWithSdk({
      mcpUrl,
      browser: makeBrowser(app.baseUrl),
      user: { email, password: PASSWORD }
    })
    return { mcpUrl, accessToken }
  })

/** A PATCH of an article through the API with `key`: the answer's status, headers and text. */
export const patchArticle =
  (key: string, articleId: number) =>
  (body: unknown, query = "", headers: Record<string, string> = {}) =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const res = yield* app.fetch(`/api/v1/articles/${articleId}${query}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body)
      })
      return { status: res.status, headers: res.headers, text: yield* Effect.promise(() => res.text()) }
    })
