import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { callMessage, MAX_CALL_MESSAGE } from "../src/Domain/CallLog.js"
import { callToolRaw } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import { assistantOf, open, patchArticle, rowWith, signedInAccount } from "./support/WebPages.js"

const startClock = TestClock.setTime(Date.now())

const PROTECTED_BODY =
  '<p>Read about <a data-service-protected="backlink" href="https://partner.example/">our partner</a> today.</p>'

/** A signed-in user with one article carrying a protected link, and an API key. */
const withArticle = Effect.gen(function* () {
  const account = yield* signedInAccount()
  const site = yield* account.app.makeSite(account.accountId)
  const articleId = yield* account.app.makeArticle(site, { title: "Pipes", body: PROTECTED_BODY })
  const key = yield* account.app.makeKey(account.accountId)
  return { ...account, articleId, key }
})

/** The rows of both activity pages (the article's and the account's) that contain `text`. */
const rowsOnBothPages = (browser: Parameters<typeof open>[0], articleId: number, text: string) =>
  Effect.gen(function* () {
    const article = yield* open(browser, `/articles/${articleId}/activity`)
    const account = yield* open(browser, "/activity")
    return [rowWith(article.text, text), rowWith(account.text, text)] as const
  })

describe("a failed call's message as the log keeps it", () => {
  it("is one line, its control characters and line breaks each run one space", () => {
    assert.strictEqual(callMessage("first\nsecond\r\n\tthird\u202e!"), "first second third !")
  })

  it(`is at most ${MAX_CALL_MESSAGE} characters, the cut marked`, () => {
    const kept = callMessage("x".repeat(5000))
    assert.strictEqual(kept.length, MAX_CALL_MESSAGE)
    assert.isTrue(kept.endsWith("…"))
  })
})

layer(TestServerLive)("the activity log says why a call failed", (it) => {
  it.effect("a 409, a 412 and a 422 through the API and a 409 through MCP show their error and message, escaped", () =>
    Effect.gen(function* () {
      yield* startClock
      const { browser, articleId, key, email } = yield* withArticle
      const patch = patchArticle(key, articleId)
      const conflict = yield* patch({
        replacements: [
          { find: "Read", replace: "Look" },
          { find: "absent", replace: "x" }
        ]
      })
      assert.strictEqual(conflict.status, 409, conflict.text)
      yield* TestClock.adjust("1 second")
      const stale = yield* patch({ title: "Stale" }, "", { "if-match": '"7"' })
      assert.strictEqual(stale.status, 412, stale.text)
      yield* TestClock.adjust("1 second")
      const invalid = yield* patch({ title: "Bad" }, `?dry_run=${encodeURIComponent("<b>yes</b>")}`)
      assert.strictEqual(invalid.status, 422, invalid.text)
      yield* TestClock.adjust("1 second")
      const { mcpUrl, accessToken } = yield* assistantOf(email)
      const tool = yield* callToolRaw(mcpUrl, accessToken, "update_article", {
        article_id: articleId,
        replacements: [{ find: "nowhere", replace: "x" }]
      })
      assert.isTrue(tool.isError)

      for (const row of yield* rowsOnBothPages(browser, articleId, "replacements[1]: find occurs 0 times")) {
        assert.include(row, `PATCH /api/v1/articles/${articleId}`)
        assert.include(row, "<code>replacement_conflict</code>")
        assert.include(row, ">409<")
      }
      const [precondition] = yield* rowsOnBothPages(browser, articleId, "<code>precondition_failed</code>")
      assert.include(precondition, ">412<")
      assert.match(precondition, /<span class="why"><code>precondition_failed<\/code> <bdi>[^<]+<\/bdi><\/span>/)
      const [validation] = yield* rowsOnBothPages(browser, articleId, "<code>validation_error</code>")
      assert.include(validation, "&lt;b&gt;yes&lt;/b&gt;")
      assert.notInclude(validation, "<b>yes</b>")
      const [mcp] = yield* rowsOnBothPages(browser, articleId, "update_article")
      assert.include(mcp, "<code>replacement_conflict</code>")
    })
  )

  it.effect("a save refused in the editor and a preview in the editor are listed as such, with why", () =>
    Effect.gen(function* () {
      yield* startClock
      const { browser, articleId } = yield* withArticle
      const page = yield* open(browser, `/articles/${articleId}`)
      const form = { csrf: page.csrf, title: "Pipes", meta_description: "", body: "<p>No link any more.</p>" }
      const refused = yield* browser.post(`/articles/${articleId}/edit`, form)
      assert.strictEqual(refused.status, 422, refused.text)
      yield* TestClock.adjust("1 second")
      const previewed = yield* browser.post(`/articles/${articleId}/preview`, { ...form, body: PROTECTED_BODY })
      assert.strictEqual(previewed.status, 200, previewed.text)

      for (const row of yield* rowsOnBothPages(browser, articleId, "Save in the editor")) {
        assert.include(row, '<span class="badge failed">refused</span>')
        assert.include(row, "<code>protected_link_violation</code>")
        assert.include(row, "https://partner.example/")
        assert.include(row, ">422<")
      }
      for (const row of yield* rowsOnBothPages(browser, articleId, "Preview in the editor")) {
        assert.include(row, '<span class="badge note">preview</span> nothing saved')
        assert.include(row, ">200<")
      }
      // Neither is a change: the article has its one revision.
      const onlyEditor = yield* open(browser, `/articles/${articleId}/activity?origin=editor`)
      assert.notInclude(onlyEditor.text, "Revision <a")
    })
  )
})
