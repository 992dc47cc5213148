import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { articleEditor, firstUser, PROTECTED_BODY, revisions, withArticle } from "./support/ArticlePage.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { callToolRaw } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import {
  assertPageHeaders,
  assistantOf,
  open,
  patchArticle,
  readByApiAndMcp,
  rowCount,
  rowWith,
  seen
} from "./support/WebPages.js"

layer(TestServerLive)("web pages: an article's revisions and activity", (it) => {
  describe("revisions", () => {
    it.effect(
      "a revision shows its content and a diff against the current body; Restore stores a new editor revision",
      () =>
        Effect.gen(function* () {
          const { browser, articleId, save } = yield* articleEditor
          for (const title of ["First", "Second"]) {
            const saved = yield* save({ title, body: `${PROTECTED_BODY}\n<p>${title} version.</p>` })
            assert.strictEqual(saved.status, 303)
          }
          const [first, second] = yield* revisions(articleId)
          const page = yield* open(browser, `/articles/${articleId}/revisions/${first!.number}`)
          assert.include(page.text, `<h1>Revision ${first!.number} of <bdi>Second</bdi></h1>`)
          // The text word by word, and behind "Show HTML" the lines of source.
          assert.include(seen(page.text), '<p class="block changed"><del>First</del><ins>Second</ins> version.</p>')
          assert.include(page.text, "<del>- &lt;p&gt;First version.&lt;/p&gt;</del>")
          assert.include(page.text, "<ins>+ &lt;p&gt;Second version.&lt;/p&gt;</ins>")
          // The kept line holding the protected link is marked, as in a preview's diff.
          assert.match(page.text, /<span> {2}[^<]*<mark class="protected-source"/)
          assert.match(page.text, /<iframe class="body" sandbox /)
          const restored = yield* browser.post(`/articles/${articleId}/revisions/${first!.number}/restore`, {
            csrf: page.csrf
          })
          assert.strictEqual(restored.status, 303, restored.text)
          const all = yield* revisions(articleId)
          assert.strictEqual(all.length, 3)
          const latest = all[2]!
          assert.strictEqual(latest.number, second!.number + 1)
          assert.strictEqual(latest.origin, "editor")
          assert.strictEqual(latest.body, first!.body)
          assert.strictEqual(latest.title, "First")
          assert.strictEqual(restored.location, `/articles/${articleId}?saved=${latest.number}`)
          const missing = yield* browser.get(`/articles/${articleId}/revisions/99`)
          assert.strictEqual(missing.status, 404)
        })
    )
  })

  describe("history and refused restores", () => {
    it.effect("the history lists who made each revision and what it changed, 20 to a page, revision 1 marked", () =>
      Effect.gen(function* () {
        const { browser, articleId, accountId, email } = yield* withArticle
        const userId = yield* firstUser(accountId)
        const sql = yield* SqlClient.SqlClient
        // Revision 1 as an import keeps it, then 21 edits by the user: each a new title, the last a new body only.
        const rows = Array.from({ length: 22 }, (_, i) => {
          const number = i + 1
          const imported = number === 1
          return {
            article_id: articleId,
            number,
            origin: imported ? "rewrite" : "editor",
            reason: imported ? "import pipes.csv" : `edit ${number}`,
            user_id: imported ? null : userId,
            title: `Title ${Math.min(number, 21)}`,
            body: number === 22 ? `${PROTECTED_BODY}<p>More.</p>` : PROTECTED_BODY
          }
        })
        yield* sql`insert into article_revisions ${sql.insert(rows)}`.pipe(Effect.orDie)
        const revisionLinks = (page: string) =>
          [...page.matchAll(new RegExp(`href="/articles/${articleId}/revisions/(\\d+)"`, "g"))].map((m) => Number(m[1]))

        const first = yield* open(browser, `/articles/${articleId}`)
        assert.include(first.text, "Revision history (22)")
        assert.deepStrictEqual(
          revisionLinks(first.text),
          Array.from({ length: 20 }, (_, i) => 22 - i)
        )
        const newest = rowWith(first.text, "edit 22")
        assert.include(newest, `<td data-label="Who"><bdi>${email}</bdi></td>`)
        assert.include(newest, '<td data-label="Changed">body</td>')
        assert.include(rowWith(first.text, "edit 21"), '<td data-label="Changed">title</td>')
        assert.include(first.text, `href="/articles/${articleId}?history_page=2#history" rel="next"`)

        const second = yield* open(browser, `/articles/${articleId}?history_page=2`)
        assert.deepStrictEqual(revisionLinks(second.text), [2, 1])
        const imported = rowWith(second.text, "import pipes.csv")
        assert.include(imported, '<span class="badge">original</span>')
        assert.include(imported, '<td data-label="Origin">rewrite</td>')
        assert.include(imported, '<td data-label="Changed">title, body</td>')
        assert.include(second.text, `href="/articles/${articleId}?history_page=1#history" rel="prev"`)
        assert.notInclude(second.text, 'rel="next"')
        // A page past the last says so and leads back.
        const past = yield* open(browser, `/articles/${articleId}?history_page=9`)
        assert.include(past.text, "No revisions on this page.")
        assert.include(past.text, `href="/articles/${articleId}?history_page=2#history" rel="prev"`)
      })
    )

    it.effect("the history names an API key change by the key, and a refused restore says why and saves nothing", () =>
      Effect.gen(function* () {
        const { app, browser, articleId, accountId } = yield* withArticle
        const key = yield* app.makeKey(accountId)
        const put = yield* app.fetch(`/api/v1/articles/${articleId}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ body: `${PROTECTED_BODY}<p>From the API.</p>`, reason: "api change" })
        })
        assert.strictEqual(put.status, 200, yield* Effect.promise(() => put.text()))
        const page = yield* open(browser, `/articles/${articleId}`)
        const row = rowWith(page.text, "api change")
        assert.include(row, '<td data-label="Origin">API</td>')
        assert.match(row, /<td data-label="Who"><bdi>key \d+<\/bdi><\/td>/)
        // The first revision: every field that has a value.
        assert.include(row, '<td data-label="Changed">title, body, meta description, featured image</td>')
        // A revision without the protected link (as an import might have left one): restoring it would drop the link.
        const sql = yield* SqlClient.SqlClient
        yield* sql`insert into article_revisions ${sql.insert({
          article_id: articleId,
          number: 90,
          origin: "API",
          title: "Old",
          body: "<p>No link.</p>"
        })}`.pipe(Effect.orDie)
        const before = yield* revisions(articleId)
        const refused = yield* browser.post(`/articles/${articleId}/revisions/90/restore`, { csrf: page.csrf })
        assert.strictEqual(refused.status, 422)
        assertPageHeaders(refused)
        assert.include(refused.text, "Nothing was restored.")
        assert.include(refused.text, "This change would remove or alter these protected links")
        assert.deepStrictEqual(yield* revisions(articleId), before)
      })
    )
  })

  describe("GET /articles/:id/activity", () => {
    it.effect("lists the article's API and MCP calls, newest first", () =>
      Effect.gen(function* () {
        const { app, browser, articleId, accountId, email } = yield* withArticle
        const key = yield* app.makeKey(accountId)
        yield* readByApiAndMcp({ articleId, key, email })
        const page = yield* open(browser, `/articles/${articleId}/activity`)
        const mcpRow = rowWith(page.text, "get_article")
        assert.include(mcpRow, "MCP")
        const apiRow = rowWith(page.text, `GET /api/v1/articles/${articleId}`)
        assert.include(apiRow, "API")
        assert.include(apiRow, ">200<")
        assert.isBelow(page.text.indexOf("get_article"), page.text.indexOf(`GET /api/v1/articles/${articleId}`))
      })
    )

    it.effect("tells the whole story: editor saves and restores with who and why, beside API and MCP calls", () =>
      Effect.gen(function* () {
        const { app, browser, articleId, accountId, email } = yield* withArticle
        const key = yield* app.makeKey(accountId)
        const page = yield* open(browser, `/articles/${articleId}`)
        for (const [title, reason] of [
          ["Second", "first save"],
          ["Third", "second save"],
          ["Fourth", ""]
        ] as const) {
          const reply = yield* browser.post(`/articles/${articleId}/edit`, {
            csrf: page.csrf,
            title,
            meta_description: "Old meta",
            body: PROTECTED_BODY,
            reason
          })
          assert.strictEqual(reply.status, 303)
        }
        const restored = yield* browser.post(`/articles/${articleId}/revisions/1/restore`, { csrf: page.csrf })
        assert.strictEqual(restored.status, 303)
        yield* readByApiAndMcp({ articleId, key, email })
        const activity = yield* open(browser, `/articles/${articleId}/activity`)
        assert.include(rowWith(activity.text, "first save"), "editor")
        assert.include(rowWith(activity.text, "first save"), email)
        assert.include(rowWith(activity.text, "second save"), "Revision")
        assert.include(rowWith(activity.text, "Restored revision 1"), "editor")
        assert.include(rowWith(activity.text, "get_article"), "MCP")
        assert.include(rowWith(activity.text, `GET /api/v1/articles/${articleId}`), "API")
        const onlyEditor = yield* open(browser, `/articles/${articleId}/activity?origin=editor`)
        assert.strictEqual(rowCount(onlyEditor.text), 4)
        assert.notInclude(onlyEditor.text, "get_article")
        const onlyMcp = yield* open(browser, `/articles/${articleId}/activity?origin=MCP`)
        assert.notInclude(onlyMcp.text, "first save")
        assert.include(onlyMcp.text, "get_article")
      })
    )

    it.effect(
      "tells previews and replays from changes, shows every change's reason, and links changes and revisions",
      () =>
        Effect.gen(function* () {
          const { app, browser, articleId, accountId, email } = yield* withArticle
          const key = yield* app.makeKey(accountId)
          const patch = patchArticle(key, articleId)
          // A preview, a keyed change and its replay through the API, and a change through MCP, each with a reason.
          assert.strictEqual(
            (yield* patch({ title: "Previewed", reason: "just looking" }, "?dry_run=true")).status,
            200
          )
          yield* TestClock.adjust("1 second")
          const keyed = { "idempotency-key": "activity-replay" }
          assert.strictEqual((yield* patch({ title: "By the API", reason: "api reason" }, "", keyed)).status, 200)
          yield* TestClock.adjust("1 second")
          const replay = yield* patch({ title: "By the API", reason: "api reason" }, "", keyed)
          assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
          yield* TestClock.adjust("1 second")
          const { mcpUrl, accessToken } = yield* assistantOf(email)
          const tool = yield* callToolRaw(mcpUrl, accessToken, "update_article", {
            article_id: articleId,
            title: "Retitled by an assistant",
            meta_description: "Set by an assistant",
            reason: "mcp reason"
          })
          assert.isFalse(tool.isError, JSON.stringify(tool.text))
          // A preview through MCP is marked the same way.
          const previewed = yield* callToolRaw(mcpUrl, accessToken, "update_article", {
            article_id: articleId,
            title: "Only looking",
            dry_run: true
          })
          assert.isFalse(previewed.isError, JSON.stringify(previewed.text))
          yield* readRowsWritten

          const activity = yield* open(browser, `/articles/${articleId}/activity`)
          const previews = activity.text.split("</tr>").filter((row) => row.includes(">preview<"))
          assert.strictEqual(previews.length, 2, activity.text)
          assert.isTrue(previews.some((row) => row.includes("update_article") && row.includes("MCP")))
          const preview = rowWith(
            activity.text,
            `PATCH /api/v1/articles/${articleId}</code> <span class="badge note">preview`
          )
          assert.include(preview, `PATCH /api/v1/articles/${articleId}`)
          assert.include(preview, "nothing saved")
          assert.notInclude(preview, "revisions/")
          const replayed = rowWith(activity.text, ">replay<")
          assert.include(replayed, `PATCH /api/v1/articles/${articleId}`)
          assert.include(replayed, "nothing saved again")
          const saved = rowWith(activity.text, "api reason")
          assert.include(saved, `PATCH /api/v1/articles/${articleId}`)
          assert.include(saved, `revision <a href="/articles/${articleId}/revisions/1">1</a> saved`)
          const mcp = rowWith(activity.text, "mcp reason")
          assert.include(mcp, "update_article")
          assert.include(mcp, `revision <a href="/articles/${articleId}/revisions/2">2</a> saved`)

          // And back: each revision names the call that saved it, and shows how its title and meta description differ
          // from the current ones (only those that do).
          const first = yield* open(browser, `/articles/${articleId}/revisions/1`)
          assert.include(first.text, `<dt>Saved by</dt><dd><code>PATCH /api/v1/articles/${articleId}</code>`)
          assert.include(first.text, `<a href="/articles/${articleId}/activity">activity</a>`)
          assert.include(
            seen(first.text),
            '<dt>Meta description</dt>\n<dd class="word-diff"><del>Old meta</del><ins>Set by an assistant</ins></dd>'
          )
          assert.include(
            seen(first.text),
            '<dt>Title</dt>\n<dd class="word-diff"><del>By the API</del><ins>Retitled by an assistant</ins></dd>'
          )
          const second = yield* open(browser, `/articles/${articleId}/revisions/2`)
          assert.include(second.text, "<dt>Saved by</dt><dd><code>update_article</code>")
        })
    )

    it.effect("pages the log by 50, newest first", () =>
      Effect.gen(function* () {
        const { browser, articleId, accountId } = yield* withArticle
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < 51; i++) {
          yield* sql`insert into audit_log ${sql.insert({
            at: sql`${new Date(Date.now() - 2 * 3_600_000 + i * 60_000).toISOString()}::timestamptz`,
            account_id: accountId,
            origin: "API",
            method: "GET",
            path: `/api/v1/articles/${articleId}?call=${i}`,
            article_id: articleId,
            status: 200,
            duration_ms: 3
          })}`.pipe(Effect.orDie)
        }
        const first = yield* open(browser, `/articles/${articleId}/activity`)
        assert.strictEqual(rowCount(first.text), 50)
        assert.include(first.text, "call=50")
        assert.notInclude(first.text, "call=0<")
        assert.include(first.text, `href="/articles/${articleId}/activity?page=2" rel="next"`)
        const second = yield* open(browser, `/articles/${articleId}/activity?page=2`)
        assert.strictEqual(rowCount(second.text), 1)
        assert.include(second.text, "call=0<")
        assert.notInclude(second.text, 'rel="next"')
      })
    )
  })
})
