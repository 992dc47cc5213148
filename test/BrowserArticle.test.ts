import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { articleRow, PARTNER, PROTECTED_BODY, revisions } from "./support/ArticlePage.js"
import { browserAvailable, ChromiumLive, inBrowser } from "./support/Browser.js"
import {
  follow,
  importedOriginal,
  saveInEditor,
  seenTexts,
  signIn,
  startClock,
  text,
  visitor
} from "./support/BrowserFlows.js"
import { callToolRaw } from "./support/McpClient.js"
import type { Screen } from "./support/PageChecks.js"
import { checkPage, SCREENS } from "./support/PageChecks.js"
import { TestServerLive } from "./support/TestServer.js"
import { assistantOf, patchArticle, readByApiAndMcp } from "./support/WebPages.js"

const ORIGINAL = { title: "Pipes in winter", body: PROTECTED_BODY }

/** A visitor whose website has an imported article with a protected link: revision 1 is the text as imported. */
const withArticle = (screen: Screen) =>
  Effect.gen(function* () {
    const found = yield* visitor(screen)
    const articleId = yield* found.app.makeArticle(found.siteId, { ...ORIGINAL, meta_description: "Old meta" })
    yield* importedOriginal(articleId, ORIGINAL)
    return { ...found, articleId }
  })

/** The rendered text of each row of the first table's body. */
const rows = (page: Page) => inBrowser(() => page.locator("table tbody tr").allInnerTexts())

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: the article page", (it) => {
    for (const screen of SCREENS) {
      const at = `at ${screen.width} px`

      it.scoped(`${at}: the history starts from the imported original; a save adds a revision, a refusal none`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId } = yield* withArticle(screen)
          yield* signIn(page, email, `/articles/${articleId}`)
          assert.strictEqual(yield* text(page, "h1"), "Pipes in winter")
          const history = yield* rows(page)
          assert.strictEqual(history.length, 1)
          assert.match(history[0]!, /^(Revision )?1\s+original[\s\S]*rewrite[\s\S]*import garden-tools\.json/)
          yield* checkPage(page, "article")
          // In the dark theme the body's frame is dark too, not a white box.
          yield* inBrowser(() => page.emulateMedia({ colorScheme: "dark" }))
          const frameBackground = yield* inBrowser(() =>
            page
              .frameLocator("iframe.body")
              .locator("body")
              .evaluate((body) => getComputedStyle(body).backgroundColor)
          )
          assert.strictEqual(frameBackground, "rgb(23, 30, 41)")
          yield* checkPage(page, "article-dark")
          yield* inBrowser(() => page.emulateMedia({ colorScheme: "light" }))

          yield* saveInEditor(page, { title: "Pipes in a cold winter", reason: "clearer title" })
          const saved = yield* revisions(articleId)
          assert.deepStrictEqual(
            saved.map((r) => [r.number, r.origin, r.title]),
            [
              [1, "rewrite", "Pipes in winter"],
              [2, "editor", "Pipes in a cold winter"]
            ]
          )
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 2.")
          assert.strictEqual(yield* text(page, "h1"), "Pipes in a cold winter")
          assert.match((yield* rows(page))[0]!, /^(Revision )?2[\s\S]*editor[\s\S]*clearer title/)
          yield* checkPage(page, "article-saved")

          yield* saveInEditor(page, { body: "<p>Read about our partner today.</p>" })
          const alert = yield* text(page, "#editor-note")
          assert.include(alert, "Nothing was saved.")
          assert.include(alert, `“${PARTNER.text}” → ${PARTNER.href}`)
          assert.strictEqual(
            yield* inBrowser(() => page.getByLabel("HTML body").inputValue()),
            "<p>Read about our partner today.</p>"
          )
          yield* checkPage(page, "article-refused")
          assert.strictEqual((yield* articleRow(articleId)).body, PROTECTED_BODY)
          assert.strictEqual((yield* revisions(articleId)).length, 2)
        })
      )

      it.scoped(`${at}: Restore shows the diff, asks for confirmation, then stores a new editor revision`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { page, email, articleId } = yield* withArticle(screen)
          yield* signIn(page, email, `/articles/${articleId}`)
          const longLine = `<p>${"A long paragraph that goes on and on without a break, ".repeat(6)}</p>`
          yield* saveInEditor(page, { title: "Second", body: `${PROTECTED_BODY}\n<p>Second version.</p>\n${longLine}` })

          yield* follow(page, () => page.getByRole("link", { name: "1", exact: true }).click())
          assert.strictEqual(yield* text(page, "h1"), "Revision 1 of Second")
          // The current body's new paragraphs, as they read; then behind "Show HTML" its lines of source.
          assert.deepStrictEqual(yield* seenTexts(page.locator("div.word-diff p.added")), [
            "Second version.",
            longLine.slice(3, -4).trim()
          ])
          yield* inBrowser(() => page.getByText("Show HTML").click())
          assert.include(yield* text(page, ".diff-summary"), "0 lines removed, 2 lines added")
          assert.include(yield* text(page, "pre.diff"), "+ <p>Second version.</p>")
          yield* checkPage(page, "revision")

          yield* follow(page, () => page.getByRole("link", { name: "Restore this revision" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Restore revision 1?")
          assert.strictEqual((yield* revisions(articleId)).length, 2, "opening the confirmation changes nothing")
          yield* checkPage(page, "restore-confirm")
          // Cancel goes back to the revision, and nothing is restored.
          yield* follow(page, () => page.getByRole("link", { name: "Cancel" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Revision 1 of Second")
          assert.strictEqual((yield* revisions(articleId)).length, 2)

          yield* follow(page, () => page.getByRole("link", { name: "Restore this revision" }).click())
          yield* follow(page, () => page.getByRole("button", { name: "Restore revision 1" }).click())
          const all = yield* revisions(articleId)
          assert.deepStrictEqual(
            all.map((r) => [r.number, r.origin, r.title]),
            [
              [1, "rewrite", "Pipes in winter"],
              [2, "editor", "Second"],
              [3, "editor", "Pipes in winter"]
            ]
          )
          assert.strictEqual(all[2]!.body, PROTECTED_BODY)
          assert.strictEqual(yield* text(page, "[role=status]"), "Saved as revision 3.")
          yield* checkPage(page, "restored")
        })
      )

      it.scoped(`${at}: the article's activity and the account's activity tell calls and changes apart`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { app, page, email, articleId, accountId } = yield* withArticle(screen)
          const key = yield* app.makeKey(accountId)
          yield* signIn(page, email, `/articles/${articleId}`)
          yield* saveInEditor(page, { title: "Pipes in a cold winter", reason: "clearer title" })
          yield* readByApiAndMcp({ articleId, key, email })

          yield* follow(page, () => page.getByRole("link", { name: "Activity log" }).click())
          assert.strictEqual(yield* text(page, "h1"), "Activity of Pipes in a cold winter")
          const story = yield* rows(page)
          const has = (pattern: RegExp) =>
            assert.isTrue(
              story.some((row) => pattern.test(row)),
              `${pattern}\n${story.join("\n")}`
            )
          assert.strictEqual(story.length, 4)
          has(/MCP[\s\S]*get_article[\s\S]*200/)
          has(new RegExp(`API[\\s\\S]*key [\\s\\S]*GET /api/v1/articles/${articleId}[\\s\\S]*200`))
          has(new RegExp(`editor[\\s\\S]*${email}[\\s\\S]*Revision 2 saved[\\s\\S]*clearer title`))
          has(/rewrite[\s\S]*Revision 1 saved[\s\S]*import garden-tools\.json/)
          yield* checkPage(page, "article-activity")
          yield* follow(page, () => page.getByRole("link", { name: "Editor", exact: true }).click())
          assert.strictEqual((yield* rows(page)).length, 1)

          // The account-wide log, from the header: the same story, with the article named.
          yield* follow(page, () =>
            page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" }).click()
          )
          assert.strictEqual(new URL(page.url()).pathname, "/activity")
          assert.strictEqual(yield* text(page, "h1"), "Activity")
          const account = yield* rows(page)
          assert.isTrue(
            account.some((row) => /MCP[\s\S]*Pipes in a cold winter[\s\S]*get_article/.test(row)),
            account.join("\n")
          )
          assert.isTrue(account.some((row) => /editor[\s\S]*Pipes in a cold winter[\s\S]*Revision 2 saved/.test(row)))
          yield* checkPage(page, "activity")
          yield* follow(page, () => page.getByRole("link", { name: "MCP (assistants)" }).click())
          const mcp = yield* rows(page)
          assert.isAbove(mcp.length, 0)
          assert.isTrue(
            mcp.every((row) => row.includes("MCP")),
            mcp.join("\n")
          )
        })
      )

      it.scoped(
        `${at}: the activity marks a preview and a replay, shows API and MCP changes' reasons, links them to their revisions`,
        () =>
          Effect.gen(function* () {
            yield* startClock
            const { app, page, email, articleId, accountId } = yield* withArticle(screen)
            const key = yield* app.makeKey(accountId)
            const patch = patchArticle(key, articleId)
            assert.strictEqual((yield* patch({ title: "Previewed" }, "?dry_run=true")).status, 200)
            const keyed = { "idempotency-key": "browser-replay" }
            assert.strictEqual((yield* patch({ title: "By the API", reason: "tidier title" }, "", keyed)).status, 200)
            assert.strictEqual((yield* patch({ title: "By the API", reason: "tidier title" }, "", keyed)).status, 200)
            // And a change by an assistant, with its reason.
            const { mcpUrl, accessToken } = yield* assistantOf(email)
            const tool = yield* callToolRaw(mcpUrl, accessToken, "update_article", {
              article_id: articleId,
              meta_description: "Set by an assistant",
              reason: "assistant reason"
            })
            assert.isFalse(tool.isError, JSON.stringify(tool.text))

            yield* signIn(page, email, `/articles/${articleId}/activity`)
            const story = yield* rows(page)
            const row = (pattern: RegExp) => {
              const found = story.find((line) => pattern.test(line))
              assert.isDefined(found, `${pattern}\n${story.join("\n")}`)
              return found!
            }
            assert.match(row(/preview/), new RegExp(`PATCH /api/v1/articles/${articleId}[\\s\\S]*nothing saved`))
            assert.match(row(/replay/), /nothing saved again/)
            const saved = row(/tidier title/)
            assert.match(saved, /API[\s\S]*revision 2 saved[\s\S]*tidier title/)
            assert.match(
              row(/assistant reason/),
              /MCP[\s\S]*update_article[\s\S]*revision 3 saved[\s\S]*assistant reason/
            )
            assert.notMatch(saved, /preview|replay/)
            yield* checkPage(page, "article-activity-marks")

            // The change's revision, by its link; and back to the activity from the revision.
            yield* follow(page, () => page.getByRole("link", { name: "2", exact: true }).click())
            assert.strictEqual(new URL(page.url()).pathname, `/articles/${articleId}/revisions/2`)
            assert.match(
              yield* text(page, "dl.meta"),
              new RegExp(`Saved by[\\s\\S]*PATCH /api/v1/articles/${articleId}`)
            )
            yield* follow(page, () => page.getByRole("link", { name: "activity", exact: true }).click())
            assert.strictEqual(new URL(page.url()).pathname, `/articles/${articleId}/activity`)
          })
      )
    }
  })
})
