import { assert, describe, layer, it as unit } from "@effect/vitest"
import { Effect } from "effect"
import { checkProtectedLinks } from "../src/Html/ProtectedLinks.js"
import { putBackProtectedLinks } from "../src/Html/PutBackLinks.js"
import {
  articleEditor,
  articleRow,
  ORIGINAL_FIELDS,
  PARTNER,
  PROTECTED_BODY,
  revisions,
  textareaValue
} from "./support/ArticlePage.js"
import { hiddenField } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import { assertPageHeaders } from "./support/WebPages.js"

const LINK = `<a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a>`

// Typed in "Edit HTML": the link left as plain text, and markup the sanitiser would rewrite (upper case, no quotes).
const TYPED = `<P CLASS=lead>Read about ${PARTNER.text} today &amp; tomorrow.\n<p>More <b>bold`

describe("putting protected links back", () => {
  for (const { name, typed, expected } of [
    {
      name: "a link left as plain text is linked again there",
      typed: TYPED,
      expected: TYPED.replace(PARTNER.text, LINK)
    },
    {
      name: "an altered href is put back over the altered link",
      typed: `<p>Intro. ${LINK.replace(PARTNER.href, "https://elsewhere.example/")}</p>`,
      expected: `<p>Intro. ${LINK}</p>`
    },
    {
      name: "a link whose protection was removed is protected again",
      typed: `<p>See <a href="${PARTNER.href}">partners</a>.</p>`,
      expected: `<p>See ${LINK}.</p>`
    },
    {
      name: "a link deleted with its text comes back at the end",
      typed: "<p>Gone.</p>",
      expected: `<p>Gone.</p>\n<p>${LINK}</p>`
    },
    {
      name: "a forged protected link is left as its text, and links kept are untouched",
      typed: `${PROTECTED_BODY}<p><a data-service-protected="internal" href="/x">our <i>x</i></a></p>`,
      expected: `${PROTECTED_BODY}<p>our <i>x</i></p>`
    }
  ]) {
    unit(name, () => {
      const result = putBackProtectedLinks(PROTECTED_BODY, typed)
      assert.strictEqual(result, expected)
      assert.deepStrictEqual(checkProtectedLinks(PROTECTED_BODY, result), [])
    })
  }
})

layer(TestServerLive)("web pages: a refused save", (it) => {
  it.effect("comes back in HTML mode with the text exactly as typed, the refusal and its put-back next to Save", () =>
    Effect.gen(function* () {
      const { articleId, save } = yield* articleEditor
      const reply = yield* save({ body: TYPED, mode: "html" })
      assert.strictEqual(reply.status, 422)
      assertPageHeaders(reply)
      assert.strictEqual(hiddenField(reply.text, "mode"), "html")
      assert.strictEqual(textareaValue(reply.text, "body"), TYPED)
      const saveAt = reply.text.indexOf(">Save</button>")
      const afterSave = reply.text.slice(saveAt, reply.text.indexOf("</form>", saveAt))
      assert.match(afterSave, /<div class="error" id="editor-note" role="alert" tabindex="-1" autofocus>/)
      assert.include(afterSave, "This change would remove or alter these protected links")
      assert.include(afterSave, 'name="action" value="put_back_links">Put the protected links back</button>')
      // Only one refusal on the page: not also at its top.
      assert.strictEqual(reply.text.split('role="alert"').length, 2)
      assert.deepStrictEqual(yield* articleRow(articleId), ORIGINAL_FIELDS)
    })
  )

  it.effect("comes back in rich text when that was in use, and other refusals offer no put-back", () =>
    Effect.gen(function* () {
      const { save } = yield* articleEditor
      const reply = yield* save({ title: "  ", mode: "rich" })
      assert.strictEqual(reply.status, 422)
      assert.strictEqual(hiddenField(reply.text, "mode"), "rich")
      assert.include(reply.text, "Please correct this: title: must not be empty")
      assert.notInclude(reply.text, "Put the protected links back")
      const unknown = yield* save({ title: "  ", mode: "other" })
      assert.strictEqual(hiddenField(unknown.text, "mode"), "rich")
    })
  )

  it.effect("put back: the text with the link where it stood, in the same mode, saved by the next Save", () =>
    Effect.gen(function* () {
      const { articleId, save } = yield* articleEditor
      const back = yield* save({ body: TYPED, mode: "html", action: "put_back_links" })
      assert.strictEqual(back.status, 200)
      assert.strictEqual(hiddenField(back.text, "mode"), "html")
      const body = textareaValue(back.text, "body")!
      assert.strictEqual(body, TYPED.replace(PARTNER.text, LINK))
      assert.include(back.text, "The protected links are back where they stood.")
      assert.deepStrictEqual(yield* revisions(articleId), [])
      const saved = yield* save({ body, mode: "html" })
      assert.strictEqual(saved.status, 303, saved.text)
      assert.strictEqual(saved.location, `/articles/${articleId}?saved=1`)
      const row = yield* articleRow(articleId)
      assert.include(row.body, LINK)
      assert.include(row.body, "tomorrow")
    })
  )

  it.effect("the form's POST address opened with GET (after a refusal, say) answers an HTML 405 page", () =>
    Effect.gen(function* () {
      const { browser, articleId } = yield* articleEditor
      const reply = yield* browser.get(`/articles/${articleId}/edit`)
      assert.strictEqual(reply.status, 405)
      assertPageHeaders(reply)
      assert.include(reply.text, "<!doctype html>")
    })
  )
})
