// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { clockStarts } from "./support/Clock.js"
import { request } from "./support/Http.js"
import { sharedMcpSession } from "./support/McpSession.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const PARTNER = { type: "backlink", href: "https://partner.example/", text: "our partner" }
const partnerLink = (href = PARTNER.href, text = PARTNER.text) =>
  `<a data-service-protected="backlink" href="${href}">${text}</a>`
const PROTECTED_BODY = `<p>Read about ${partnerLink()} today.</p>`

/** Each test starts a minute after the previous one: the shared session never meets its request limit. */
const startClock = clockStarts("61 seconds")

const session = sharedMcpSession()

/** A REST call with the session's API key; the status and the error body. */
const rest = (
  key: string,
  method: string,
  path: string,
  json?: unknown,
  init: { readonly body?: BodyInit; readonly headers?: Record<string, string> } = {}
) => request(method, `/api/v1${path}`, { bearer: key, json, body: init.body, headers: init.headers })

/** The same refusal through REST and through the tool: its error body, which must be the same through both. */
const refusedAlike = (
  viaRest: Effect.Effect<
    { readonly status: number; readonly body: { readonly error: string; readonly message: string } },
    never,
    TestApp
  >,
  tool: string,
  args: Record<string, unknown>
) =>
  Effect.gen(function* () {
    const { callTool } = yield* session
    const byRest = yield* viaRest
    const byTool = yield* callTool(tool, args)
    assert.isTrue(byTool.isError, JSON.stringify(byTool.text))
    assert.strictEqual(byTool.text.error, byRest.body.error)
    assert.strictEqual(byTool.text.message, byRest.body.message)
    return byRest.body
  })

const storedBody = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ body: string }>`select body from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!.body
  })

/**
 * An edit of a new article holding `stored`, refused alike through REST (`method` with `edit`) and the
 * update_article tool with `error`, the article still holding `stored` after both: the error's message.
 */
const editRefusedAlike = (stored: string, method: "PUT" | "PATCH", edit: Record<string, unknown>, error: string) =>
  Effect.gen(function* () {
    yield* startClock
    const { key, siteId } = yield* session
    const id = yield* Effect.flatMap(TestApp, (app) => app.makeArticle(siteId, { body: stored }))
    const body = yield* refusedAlike(rest(key, method, `/articles/${id}`, edit), "update_article", {
      article_id: id,
      ...edit
    })
    assert.strictEqual(body.error, error)
    assert.strictEqual(yield* storedBody(id), stored)
    return body.message
  })

layer(TestServerLive)("error messages say how to fix the request, through REST and MCP alike", (it) => {
  describe("a bad enum value lists the allowed values", () => {
    it.effect("status=live on the articles list names draft, scheduled and published", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId } = yield* session
        const body = yield* refusedAlike(rest(key, "GET", `/sites/${siteId}/articles?status=live`), "list_articles", {
          site_id: siteId,
          status: "live"
        })
        assert.strictEqual(body.error, "validation_error")
        assert.strictEqual(body.message, 'status: must be one of "draft", "scheduled", "published"; got "live"')
      })
    )
  })

  describe("a replacement conflict names the replacement, the count, and what to do", () => {
    it.effect('a find that occurs twice is 409 naming replacements[1] and 2, suggesting "all": true', () =>
      Effect.gen(function* () {
        const replacements = [
          { find: "blue", replace: "green" },
          { find: "red", replace: "pink" }
        ]
        const stored = "<p>red fish, red fish, blue fish</p>"
        const message = yield* editRefusedAlike(stored, "PATCH", { replacements }, "replacement_conflict")
        assert.include(message, "replacements[1]")
        assert.include(message, "occurs 2 times")
        assert.include(message, '"all": true')
      })
    )

    it.effect('a find that does not occur says 0 and does not suggest "all": true', () =>
      Effect.gen(function* () {
        const replacements = [{ find: "Red", replace: "pink" }]
        const message = yield* editRefusedAlike("<p>red fish</p>", "PATCH", { replacements }, "replacement_conflict")
        assert.include(message, "replacements[0]")
        assert.include(message, "occurs 0 times")
        assert.notInclude(message, '"all": true')
      })
    )
  })

  describe("a protected-link violation says, link by link, what the edit did", () => {
    it.effect("a removed link is named as removed, in the form it had", () =>
      Effect.gen(function* () {
        const edit = { body: "<p>Read about it today.</p>" }
        const message = yield* editRefusedAlike(PROTECTED_BODY, "PUT", edit, "protected_link_violation")
        assert.include(message, `removed ${partnerLink()}`)
        assert.notInclude(message, "altered")
      })
    )

    it.effect("an altered link is named as altered, with its old and its new form", () =>
      Effect.gen(function* () {
        const replacements = [{ find: PARTNER.href, replace: "https://elsewhere.example/" }]
        const message = yield* editRefusedAlike(PROTECTED_BODY, "PATCH", { replacements }, "protected_link_violation")
        assert.include(message, `altered ${partnerLink()} into ${partnerLink("https://elsewhere.example/")}`)
        assert.notInclude(message, "removed")
      })
    )

    it.effect("an added link is named as added", () =>
      Effect.gen(function* () {
        const forged = '<a data-service-protected="internal" href="https://forged.example/">forged</a>'
        const edit = { body: `${PROTECTED_BODY}<p>${forged}</p>` }
        const message = yield* editRefusedAlike(PROTECTED_BODY, "PUT", edit, "protected_link_violation")
        assert.include(message, `added ${forged}`)
        assert.notInclude(message, "removed")
      })
    )
  })

  describe("a malformed JSON body is told where it stops being JSON", () => {
    for (const [body, message] of [
      ['{"title": }', "The request body is not valid JSON: a value was expected at line 1, column 11."],
      [
        '{\n  "title": "x",\n  "body": "<p>x</p>",\n}',
        "The request body is not valid JSON: a property name in double quotes was expected at line 4, column 1."
      ],
      [
        '{"title": "x"} {',
        "The request body is not valid JSON: nothing may follow the JSON value at line 1, column 16."
      ],
      [
        '{"title": "two\nlines"}',
        "The request body is not valid JSON: a string that is not closed on its line (write a line break as \\n) at line 1, column 11."
      ],
      ["", "The request body is empty; this endpoint takes a JSON body."]
    ] as const) {
      it.effect(`${JSON.stringify(body)} is 422 validation_error: ${message}`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { key, siteId } = yield* session
          const app = yield* TestApp
          const id = yield* app.makeArticle(siteId)
          for (const method of ["PUT", "PATCH"]) {
            const answer = yield* rest(key, method, `/articles/${id}`, undefined, {
              body,
              headers: { "content-type": "application/json" }
            })
            assert.strictEqual(answer.status, 422, answer.text)
            assert.deepStrictEqual(answer.body, { error: "validation_error", message })
          }
        })
      )
    }
  })

  describe("an integer query parameter that is not one says its range, in the service's words", () => {
    for (const [query, message] of [
      ["page=abc", "page: must be a whole number from 1 to 999999999"],
      ["page=0", "page: must be a whole number from 1 to 999999999"],
      ["page=1000000000", "page: must be a whole number from 1 to 999999999"],
      ["page=1&page=2", "page: must be a whole number from 1 to 999999999"],
      ["per_page=-5", "per_page: must be a whole number from 1 to 100"],
      ["per_page=2.5", "per_page: must be a whole number from 1 to 100"]
    ] as const) {
      it.effect(`${query} on the articles list: ${message}`, () =>
        Effect.gen(function* () {
          yield* startClock
          const { key, siteId } = yield* session
          const answer = yield* rest(key, "GET", `/sites/${siteId}/articles?${query}`)
          assert.strictEqual(answer.status, 422, answer.text)
          assert.deepStrictEqual(answer.body, { error: "validation_error", message })
        })
      )
    }

    it.effect("months=abc on the stats, and page through the tool, say the same", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId } = yield* session
        const months = yield* rest(key, "GET", `/sites/${siteId}/stats?months=abc`)
        assert.strictEqual(months.body.message, "months: must be a whole number from 1 to 24")
        const body = yield* refusedAlike(rest(key, "GET", `/sites/${siteId}/articles?page=0`), "list_articles", {
          site_id: siteId,
          page: 0
        })
        assert.strictEqual(body.message, "page: must be a whole number from 1 to 999999999")
      })
    )

    it.effect("per_page over 100 still says its bound with limit 100", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId } = yield* session
        const answer = yield* rest(key, "GET", `/sites/${siteId}/articles?per_page=101`)
        assert.deepStrictEqual(answer.body, {
          error: "validation_error",
          message: "per_page: must be at most 100",
          limit: 100
        })
      })
    )
  })

  describe("no internal type name in any message", () => {
    it.effect("a multipart image sent as a text field says what to send, not the parser's type names", () =>
      Effect.gen(function* () {
        yield* startClock
        const { key, siteId, callTool } = yield* session
        const app = yield* TestApp
        const id = yield* app.makeArticle(siteId)
        const form = new FormData()
        form.append("image", "not a file")
        const byRest = yield* rest(key, "POST", `/articles/${id}/featured-image`, undefined, { body: form })
        assert.strictEqual(byRest.status, 422, JSON.stringify(byRest.body))
        assert.strictEqual(byRest.body.error, "validation_error")
        assert.match(byRest.body.message, /^image: /)
        const byTool = yield* callTool("replace_featured_image", { article_id: id, image: {} })
        assert.strictEqual(byTool.text.error, "validation_error")
        assert.match(byTool.text.message, /^image: /)
        for (const message of [byRest.body.message, byTool.text.message]) {
          assert.notMatch(message, /ReadonlyArray|PersistedFile|Expected [A-Z]/, message)
        }
      })
    )
  })
})
