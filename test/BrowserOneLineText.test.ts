import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import { signIn, startClock, storedFirstRevision, text, visitor } from "./support/BrowserFlows.js"
import { SCREENS } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"

/** A change stored before one-line text refused control characters: as if saved in the editor with this reason. */
const storedChange = (id: ArticleId, reason: string) =>
  storedFirstRevision(id, { origin: "editor", reason, title: "\u202Ecod.exe", body: "<p>Some text.</p>" })

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: text stored with control characters", (it) => {
    it.scoped("the activity log shows a stored U+202E as visible text inside <bdi>, and it reverses nothing", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, page, email, siteId } = yield* visitor(SCREENS[0])
        const id = yield* app.makeArticle(siteId, { title: "\u202Ecod.exe", body: "<p>Some text.</p>" })
        yield* storedChange(id, "\u202Eexe.txt\u202C fixed typo")
        yield* signIn(page, email, `/articles/${id}/activity`)

        assert.strictEqual(yield* text(page, "h1"), "Activity of ⟨U+202E⟩cod.exe")
        const reason = 'td bdi:has-text("fixed typo")'
        assert.strictEqual(yield* inBrowser(() => page.locator(reason).count()), 1)
        // What a reader sees is the text as stored, its override written out, not "txt.exe fixed typo".
        assert.strictEqual(yield* text(page, reason), "⟨U+202E⟩exe.txt⟨U+202C⟩ fixed typo")
        const shown = yield* text(page, "body")
        assert.notInclude(shown, "\u202E")
        assert.notInclude(shown, "\u202C")
        assert.notInclude(yield* inBrowser(() => page.content()), "\u202E")

        // The article page, its revisions list and the revision's page show them the same way.
        yield* inBrowser(() => page.goto(`/articles/${id}`))
        assert.strictEqual(yield* text(page, "h1"), "⟨U+202E⟩cod.exe")
        assert.include(yield* inBrowser(() => page.title()), "⟨U+202E⟩cod.exe")
        assert.strictEqual(yield* text(page, reason), "⟨U+202E⟩exe.txt⟨U+202C⟩ fixed typo")
        yield* inBrowser(() => page.goto(`/articles/${id}/revisions/1`))
        assert.strictEqual(yield* text(page, "h1"), "Revision 1 of ⟨U+202E⟩cod.exe")
        assert.notInclude(yield* inBrowser(() => page.content()), "\u202E")
      })
    )
  })
})
