import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { AccountId, ArticleId } from "../src/Domain/Ids.js"
import { MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { callToolRaw } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import {
  assertPageHeaders,
  assistantOf,
  open,
  patchArticle,
  readByApiAndMcp,
  rowWith,
  signedInAccount
} from "./support/WebPages.js"

const startClock = TestClock.setTime(Date.now())

const PARTNER = { href: "https://partner.example/", text: "our partner" }
const PROTECTED_BODY = `<p>Read about <a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a> today.</p>`

/** A signed-in user with one article carrying a protected link. */
const withArticle = Effect.gen(function* () {
  const account = yield* signedInAccount()
  const site = yield* account.app.makeSite(account.accountId)
  const articleId = yield* account.app.makeArticle(site, {
    title: "Pipes in winter",
    target_keyword: "frozen pipes",
    word_count: 5,
    featured_image_url: "https://images.example/pipe.png",
    meta_description: "Old meta",
    body: PROTECTED_BODY
  })
  return { ...account, articleId }
})

const articleRow = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ title: string; body: string; meta_description: string | null }>`
      select title, body, meta_description from articles where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  )

const revisions = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ number: number; origin: string; user_id: number | null; body: string; title: string }>`
      select number, origin, user_id, body, title from article_revisions where article_id = ${id} order by number`.pipe(
      Effect.orDie
    )
  )

const firstUser = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`select id from users where account_id = ${accountId} order by id limit 1`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )
  )

layer(TestServerLive)("web pages: article", (it) => {
  describe("GET /articles/:id", () => {
    it.effect("shows the metadata, the body in a sandboxed frame and the protected links, with the page headers", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        assert.include(page.text, "<h1><bdi>Pipes in winter</bdi></h1>")
        assert.include(page.text, "frozen pipes")
        assert.include(page.text, 'src="https://images.example/pipe.png"')
        assert.match(page.text, /<iframe class="body" sandbox title="[^"]*" srcdoc="[^"]*data-service-protected/)
        assert.notInclude(page.text, "allow-scripts")
        assert.include(page.text, "/assets/frame.css")
        assert.include(page.text, `“${PARTNER.text}” → <code>${PARTNER.href}</code>`)
        assert.include(page.text, 'name="meta_description" rows="3" data-max="500">Old meta</textarea>')
        const css = yield* browser.get("/assets/frame.css")
        assert.strictEqual(css.status, 200)
        assert.include(css.text, "a[data-service-protected]")
      })
    )

    it.effect("another account's article, and its revision and activity pages, are 404", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser } = yield* signedInAccount()
        const other = yield* withArticle
        for (const path of [
          `/articles/${other.articleId}`,
          `/articles/${other.articleId}/activity`,
          `/articles/${other.articleId}/revisions/1`,
          "/articles/999999999",
          "/articles/abc"
        ]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 404, path)
          assertPageHeaders(reply)
        }
        const form = yield* open(browser, "/sites")
        const edit = yield* browser.post(`/articles/${other.articleId}/edit`, {
          csrf: form.csrf,
          title: "Taken",
          body: "<p>x</p>",
          meta_description: ""
        })
        assert.strictEqual(edit.status, 404)
        assert.strictEqual((yield* articleRow(other.articleId)).title, "Pipes in winter")
      })
    )
  })

  describe("the editor", () => {
    it.effect("a save is a 303 to the page saying which revision, stored with origin editor and the user", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId, accountId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const body = `${PROTECTED_BODY}\r\n<p>A new paragraph.</p>`
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in a cold winter",
          meta_description: "Old meta",
          body,
          reason: "fresher intro"
        })
        assert.strictEqual(reply.status, 303, reply.text)
        const saved = yield* revisions(articleId)
        assert.strictEqual(saved.length, 1)
        assert.strictEqual(saved[0]!.origin, "editor")
        assert.strictEqual(saved[0]!.user_id === null ? null : Number(saved[0]!.user_id), yield* firstUser(accountId))
        assert.strictEqual(reply.location, `/articles/${articleId}?saved=${saved[0]!.number}`)
        const row = yield* articleRow(articleId)
        assert.strictEqual(row.title, "Pipes in a cold winter")
        assert.include(row.body, "A new paragraph.")
        const after = yield* open(browser, reply.location!)
        assert.include(after.text, `Saved as revision ${saved[0]!.number}.`)
        const history = rowWith(after.text, "fresher intro")
        assert.include(history, "editor")
        assert.include(history, "web-")
      })
    )

    it.effect("a save that changes title, meta description and body at once is one revision holding all three", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const body = (yield* articleRow(articleId)).body.replace("</p>", " More.</p>")
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in deep winter",
          meta_description: "Newer meta",
          body
        })
        assert.strictEqual(reply.status, 303, reply.text)
        const row = yield* articleRow(articleId)
        assert.strictEqual(row.meta_description, "Newer meta")
        assert.include(row.body, "More.")
        const stored = yield* revisions(articleId)
        assert.strictEqual(stored.length, 1)
      })
    )

    it.effect("a change of the meta description only is saved as one revision", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in winter",
          meta_description: "New meta",
          body: (yield* articleRow(articleId)).body
        })
        assert.strictEqual(reply.status, 303, reply.text)
        assert.strictEqual((yield* articleRow(articleId)).meta_description, "New meta")
        assert.strictEqual((yield* revisions(articleId)).length, 1)
      })
    )

    it.effect("removing a protected link is refused in plain words, keeps the submitted text and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in winter",
          meta_description: "Old meta",
          body: "<p>No more partner here.</p>"
        })
        assert.strictEqual(reply.status, 422)
        assertPageHeaders(reply)
        assert.include(reply.text, "This change would remove or alter these protected links")
        assert.include(reply.text, PARTNER.href)
        assert.include(reply.text, "No more partner here.")
        assert.include(reply.text, "Nothing was saved.")
        assert.include((yield* articleRow(articleId)).body, PARTNER.href)
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("a script in the body is refused as disallowed HTML, naming the construct", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in winter",
          meta_description: "Old meta",
          body: `${PROTECTED_BODY}<script>alert(1)</script>`
        })
        assert.strictEqual(reply.status, 422)
        assert.include(reply.text, "The HTML was refused.")
        assert.include(reply.text, "script")
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("a body with more elements than the bound is refused with the API's own message, and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Pipes in winter",
          meta_description: "Old meta",
          body: PROTECTED_BODY + "<p>x".repeat(MAX_BODY_ELEMENTS)
        })
        assert.strictEqual(reply.status, 422)
        assert.include(reply.text, `must have at most ${MAX_BODY_ELEMENTS} HTML elements`)
        assert.strictEqual((yield* articleRow(articleId)).body, PROTECTED_BODY)
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("an empty title is refused as a validation error and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "  ",
          meta_description: "Old meta",
          body: PROTECTED_BODY
        })
        assert.strictEqual(reply.status, 422)
        assert.include(reply.text, "Please correct this: title: must not be empty")
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("the editor refuses a too-long reason with the API's own message for it, and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, browser, articleId, accountId } = yield* withArticle
        const key = yield* app.makeKey(accountId)
        const reason = "r".repeat(2001)
        const viaApi = yield* app.fetch(`/api/v1/articles/${articleId}`, {
          method: "PATCH",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ title: "New", reason })
        })
        const apiError = (yield* Effect.promise(() => viaApi.json())) as { message: string; limit: number }
        assert.strictEqual(viaApi.status, 422)
        const page = yield* open(browser, `/articles/${articleId}`)
        const reply = yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "New",
          meta_description: "Old meta",
          body: PROTECTED_BODY,
          reason
        })
        assert.strictEqual(reply.status, 422)
        assert.include(reply.text, apiError.message)
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("an edit or a restore with a missing or wrong CSRF token is 403 and changes nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        yield* browser.post(`/articles/${articleId}/edit`, {
          csrf: page.csrf,
          title: "Second title",
          meta_description: "Old meta",
          body: PROTECTED_BODY
        })
        const before = yield* revisions(articleId)
        for (const csrf of [undefined, "wrong", `${page.csrf}x`]) {
          const fields = { title: "Hacked", meta_description: "x", body: "<p>x</p>" }
          const edit = yield* browser.post(
            `/articles/${articleId}/edit`,
            csrf === undefined ? fields : { ...fields, csrf }
          )
          assert.strictEqual(edit.status, 403)
          assertPageHeaders(edit)
          const restore = yield* browser.post(
            `/articles/${articleId}/revisions/${before[0]!.number}/restore`,
            csrf === undefined ? {} : { csrf }
          )
          assert.strictEqual(restore.status, 403)
        }
        assert.strictEqual((yield* articleRow(articleId)).title, "Second title")
        assert.deepStrictEqual(yield* revisions(articleId), before)
      })
    )
  })

  describe("the rich-text editor's routes", () => {
    it.effect("the editor's script is served with a content hash for a year, and the page's CSP stays strict", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const src = /<script src="(\/assets\/editor\.js\?v=[0-9a-f]{12})" defer><\/script>/.exec(page.text)?.[1]
        assert.isDefined(src)
        // The textarea stays in the page: it is the editor without script.
        assert.include(page.text, 'name="body" rows="20">')
        assertPageHeaders(page)
        assert.notInclude(page.headers.get("content-security-policy") ?? "", "unsafe-inline")
        const script = yield* browser.get(src!)
        assert.strictEqual(script.status, 200)
        assert.strictEqual(script.headers.get("cache-control"), "public, max-age=31536000, immutable")
        assert.strictEqual(script.headers.get("content-type"), "text/javascript; charset=utf-8")
        assert.include(script.text, "data-service-protected")
      })
    )

    it.effect(
      "Preview changes answers the dry run's diff, as a part or as the page; it saves nothing and needs CSRF",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { browser, articleId } = yield* withArticle
          const page = yield* open(browser, `/articles/${articleId}`)
          const fields = {
            csrf: page.csrf,
            title: "Pipes in a cold winter",
            meta_description: "Old meta",
            body: `${PROTECTED_BODY}\n<p>New paragraph.</p>`
          }
          const part = yield* browser.post(`/articles/${articleId}/preview`, fields, { "x-page-part": "preview" })
          assert.strictEqual(part.status, 200)
          assert.strictEqual(part.headers.get("x-page-part"), "preview")
          assert.match(part.text, /^<h2>Preview of your change<\/h2>/)
          assert.include(part.text, "<ins>+&lt;p&gt;New paragraph.&lt;/p&gt;</ins>")
          // The protected link in the diff's kept lines is marked, its source as written.
          assert.match(part.text, /<mark class="protected-source"[^>]*>&lt;a data-service-protected=/)
          assert.include(
            part.text,
            "<del><bdi>Pipes in winter</bdi></del> → <ins><bdi>Pipes in a cold winter</bdi></ins>"
          )
          const whole = yield* browser.post(`/articles/${articleId}/preview`, fields)
          assert.strictEqual(whole.status, 200)
          assert.isNull(whole.headers.get("x-page-part"))
          assert.include(whole.text, '<section id="preview" aria-label="Preview"><h2>Preview of your change</h2>')
          // The submitted values stay in the form.
          assert.include(whole.text, 'value="Pipes in a cold winter"')
          // A change the service would refuse: the refusal, in the API's words; still nothing saved.
          const refused = yield* browser.post(
            `/articles/${articleId}/preview`,
            { ...fields, body: "<p>Read about our partner today.</p>" },
            { "x-page-part": "preview" }
          )
          assert.include(refused.text, 'role="alert"')
          assert.include(refused.text, `“${PARTNER.text}” → <code>${PARTNER.href}</code>`)
          const forged = yield* browser.post(`/articles/${articleId}/preview`, { ...fields, csrf: "wrong" })
          assert.strictEqual(forged.status, 403)
          assert.deepStrictEqual(yield* revisions(articleId), [])
          assert.strictEqual((yield* articleRow(articleId)).title, "Pipes in winter")
        })
    )

    it.effect("the featured-image form needs the CSRF token in its multipart body, and a non-image is refused", () =>
      Effect.gen(function* () {
        yield* startClock
        const { browser, articleId } = yield* withArticle
        const page = yield* open(browser, `/articles/${articleId}`)
        const send = (fields: Record<string, string>, file?: Blob) => {
          const form = new FormData()
          for (const [name, value] of Object.entries(fields)) form.append(name, value)
          if (file !== undefined) form.append("image", file, "photo.png")
          return browser.send(`/articles/${articleId}/featured-image`, { method: "POST", body: form })
        }
        const forged = yield* send({ url: "https://images.example/new.png" })
        assert.strictEqual(forged.status, 403)
        const wrong = yield* send({ csrf: "wrong", url: "https://images.example/new.png" })
        assert.strictEqual(wrong.status, 403)
        const notImage = yield* send({ csrf: page.csrf }, new Blob(["plain text"], { type: "image/png" }))
        assert.strictEqual(notImage.status, 422)
        assert.include(notImage.text, "Nothing was saved.")
        const noUrl = yield* send({ csrf: page.csrf, url: "ftp://images.example/new.png" })
        assert.strictEqual(noUrl.status, 422)
        assert.include(noUrl.text, "must be an absolute http or https URL")
        assert.deepStrictEqual(yield* revisions(articleId), [])
        const ok = yield* send({ csrf: page.csrf, url: "https://images.example/new.png", reason: "new picture" })
        assert.strictEqual(ok.status, 303)
        assert.deepStrictEqual(
          (yield* revisions(articleId)).map((r) => r.origin),
          ["editor"]
        )
      })
    )
  })

  describe("revisions", () => {
    it.effect(
      "a revision shows its content and a diff against the current body; Restore stores a new editor revision",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const { browser, articleId } = yield* withArticle
          let page = yield* open(browser, `/articles/${articleId}`)
          const edit = (body: string, title: string) =>
            browser.post(`/articles/${articleId}/edit`, { csrf: page.csrf, title, meta_description: "Old meta", body })
          assert.strictEqual((yield* edit(`${PROTECTED_BODY}\n<p>First version.</p>`, "First")).status, 303)
          assert.strictEqual((yield* edit(`${PROTECTED_BODY}\n<p>Second version.</p>`, "Second")).status, 303)
          const [first, second] = yield* revisions(articleId)
          page = yield* open(browser, `/articles/${articleId}/revisions/${first!.number}`)
          assert.include(page.text, `<h1>Revision ${first!.number} of <bdi>Second</bdi></h1>`)
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
    it.effect("the history names an API key change by the key, and a refused restore says why and saves nothing", () =>
      Effect.gen(function* () {
        yield* startClock
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
        assert.include(row, "API key “<bdi>key ")
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
        yield* startClock
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
        yield* startClock
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
        assert.strictEqual((onlyEditor.text.match(/<tr><th scope="row">/g) ?? []).length, 4)
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
          yield* startClock
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
            first.text,
            "<dt>Meta description</dt>\n<dd><del><bdi>Old meta</bdi></del> → <ins><bdi>Set by an assistant</bdi></ins></dd>"
          )
          assert.include(
            first.text,
            "<dt>Title</dt>\n<dd><del><bdi>By the API</bdi></del> → <ins><bdi>Retitled by an assistant</bdi></ins></dd>"
          )
          const second = yield* open(browser, `/articles/${articleId}/revisions/2`)
          assert.include(second.text, "<dt>Saved by</dt><dd><code>update_article</code>")
        })
    )

    it.effect("pages the log by 50, newest first", () =>
      Effect.gen(function* () {
        yield* startClock
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
        assert.strictEqual((first.text.match(/<tr><th scope="row">/g) ?? []).length, 50)
        assert.include(first.text, "call=50")
        assert.notInclude(first.text, "call=0<")
        assert.include(first.text, `href="/articles/${articleId}/activity?page=2" rel="next"`)
        const second = yield* open(browser, `/articles/${articleId}/activity?page=2`)
        assert.strictEqual((second.text.match(/<tr><th scope="row">/g) ?? []).length, 1)
        assert.include(second.text, "call=0<")
        assert.notInclude(second.text, 'rel="next"')
      })
    )
  })
})
