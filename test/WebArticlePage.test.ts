import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import {
  articleEditor,
  articleRow,
  firstUser,
  ORIGINAL_FIELDS,
  PARTNER,
  PROTECTED_BODY,
  revisions,
  startClock,
  withArticle
} from "./support/ArticlePage.js"
import { TestServerLive } from "./support/TestServer.js"
import { assertPageHeaders, open, patchArticle, rowWith, seen, signedInAccount } from "./support/WebPages.js"

layer(TestServerLive)("web pages: article", (it) => {
  describe("GET /articles/:id", () => {
    it.effect("shows the metadata, the body in a sandboxed frame and the protected links, with the page headers", () =>
      Effect.gen(function* () {
        const { browser, page } = yield* articleEditor
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
        const { browser, articleId, accountId, save } = yield* articleEditor
        const reply = yield* save({
          title: "Pipes in a cold winter",
          body: `${PROTECTED_BODY}\r\n<p>A new paragraph.</p>`,
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

    for (const { name, fields, stored } of [
      {
        name: "a save that changes title, meta description and body at once is one revision holding all three",
        fields: {
          title: "Pipes in deep winter",
          meta_description: "Newer meta",
          body: PROTECTED_BODY.replace("</p>", " More.</p>")
        },
        stored: { title: "Pipes in deep winter", meta_description: "Newer meta", body: "More." }
      },
      {
        name: "a change of the meta description only is saved as one revision",
        fields: { meta_description: "New meta" },
        stored: { title: "Pipes in winter", meta_description: "New meta", body: PARTNER.href }
      }
    ]) {
      it.effect(name, () =>
        Effect.gen(function* () {
          const { articleId, save } = yield* articleEditor
          const reply = yield* save(fields)
          assert.strictEqual(reply.status, 303, reply.text)
          const row = yield* articleRow(articleId)
          assert.strictEqual(row.title, stored.title)
          assert.strictEqual(row.meta_description, stored.meta_description)
          assert.include(row.body, stored.body)
          assert.strictEqual((yield* revisions(articleId)).length, 1)
        })
      )
    }

    for (const { name, fields, says } of [
      {
        name: "removing a protected link is refused in plain words, keeps the submitted text and saves nothing",
        fields: { body: "<p>No more partner here.</p>" },
        says: [
          "This change would remove or alter these protected links",
          PARTNER.href,
          "No more partner here.",
          "Nothing was saved."
        ]
      },
      {
        name: "a script in the body is refused as disallowed HTML, naming the construct",
        fields: { body: `${PROTECTED_BODY}<script>alert(1)</script>` },
        says: ["The HTML was refused.", "script"]
      },
      {
        name: "a body with more elements than the bound is refused with the API's own message, and saves nothing",
        fields: { body: PROTECTED_BODY + "<p>x".repeat(MAX_BODY_ELEMENTS) },
        says: [`must have at most ${MAX_BODY_ELEMENTS} HTML elements`]
      },
      {
        name: "an empty title is refused as a validation error and saves nothing",
        fields: { title: "  " },
        says: ["Please correct this: title: must not be empty"]
      }
    ]) {
      it.effect(name, () =>
        Effect.gen(function* () {
          const { articleId, save } = yield* articleEditor
          const reply = yield* save(fields)
          assert.strictEqual(reply.status, 422)
          assertPageHeaders(reply)
          for (const said of says) assert.include(reply.text, said)
          assert.deepStrictEqual(yield* articleRow(articleId), ORIGINAL_FIELDS)
          assert.strictEqual((yield* revisions(articleId)).length, 0)
        })
      )
    }

    it.effect("the editor refuses a too-long reason with the API's own message for it, and saves nothing", () =>
      Effect.gen(function* () {
        const { app, articleId, accountId, save } = yield* articleEditor
        const reason = "r".repeat(2001)
        const viaApi = yield* patchArticle(yield* app.makeKey(accountId), articleId)({ title: "New", reason })
        assert.strictEqual(viaApi.status, 422)
        const reply = yield* save({ title: "New", reason })
        assert.strictEqual(reply.status, 422)
        assert.include(reply.text, (JSON.parse(viaApi.text) as { message: string }).message)
        assert.strictEqual((yield* revisions(articleId)).length, 0)
      })
    )

    it.effect("an edit or a restore with a missing or wrong CSRF token is 403 and changes nothing", () =>
      Effect.gen(function* () {
        const { browser, articleId, page, save } = yield* articleEditor
        yield* save({ title: "Second title" })
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
        const { browser, page } = yield* articleEditor
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
          const { browser, articleId, page } = yield* articleEditor
          const fields = {
            ...ORIGINAL_FIELDS,
            csrf: page.csrf,
            title: "Pipes in a cold winter",
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
            seen(part.text),
            '<dt>Title</dt>\n<dd class="word-diff">Pipes in <ins>a cold</ins> winter</dd>'
          )
          assert.include(seen(part.text), '<p class="block added"><ins>New paragraph.</ins></p>')
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

    it.effect(
      "the preview of a one-word change shows that word struck and the new one marked, the HTML diff behind Show HTML",
      () =>
        Effect.gen(function* () {
          const { browser, articleId, page } = yield* articleEditor
          const fields = { ...ORIGINAL_FIELDS, csrf: page.csrf, body: PROTECTED_BODY.replace("today", "tomorrow") }
          const part = yield* browser.post(`/articles/${articleId}/preview`, fields, { "x-page-part": "preview" })
          assert.strictEqual(part.status, 200, part.text)
          const words = seen(
            part.text.slice(part.text.indexOf('<div class="word-diff">'), part.text.indexOf("<details"))
          )
          assert.match(
            words,
            /<p class="block changed">Read about <mark class="protected-source"[^>]*><a [^>]*>our partner<\/a><\/mark> <del>today<\/del><ins>tomorrow<\/ins>\.<\/p>/
          )
          assert.deepStrictEqual(words.match(/<(del|ins)>[^<]*/g), ["<del>today", "<ins>tomorrow"])
          assert.include(part.text, '<details class="html-diff"><summary>Show HTML</summary><pre class="diff">')
          assert.include(part.text, "<ins>+&lt;p&gt;Read about")
          assert.deepStrictEqual(yield* revisions(articleId), [])
        })
    )

    it.effect("the featured-image form needs the CSRF token in its multipart body, and a non-image is refused", () =>
      Effect.gen(function* () {
        const { browser, articleId, page } = yield* articleEditor
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
        assert.strictEqual(ok.location, `/articles/${articleId}?saved=1`)
        assert.deepStrictEqual(
          (yield* revisions(articleId)).map((r) => r.origin),
          ["editor"]
        )
      })
    )
  })
})
