// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { readRowsWritten } from "./support/CallLogBatches.js"
import { clockStarts } from "./support/Clock.js"
import { request } from "./support/Http.js"
import { postRpc, toolsList } from "./support/McpClient.js"
import { type Fixtures, foreignArticle, makeFixtures, storedArticle } from "./support/McpFixtures.js"
import { mcpAddress, sharedMcpUser, toolData, toolError } from "./support/McpSession.js"
import { freshMediaDir, PNG_BASE64 } from "./support/Media.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"
import { serviceTools, TOOL_ENTRY_BUDGET, toolNames } from "./support/Tools.js"

freshMediaDir("cbs-mcp-media-test-")

/** Each test starts a minute past the previous test's start: no two share a request-limit window. */
const startClock = clockStarts("61 seconds")
const sharedSession = sharedMcpUser()

/** A GET of the REST API with an API key; status and JSON body. */
const rest = (key: string, path: string) => request("GET", `/api/v1${path}`, { bearer: key })

layer(TestServerLive)("MCP interface", (it) => {
  describe("parity with the REST API", () => {
    const cases: ReadonlyArray<{
      readonly name: string
      readonly tool: string
      readonly request: (fixtures: Fixtures) => { readonly path: string; readonly args: Record<string, unknown> }
    }> = [
      { name: "list_sites", tool: "list_sites", request: () => ({ path: "/sites", args: {} }) },
      {
        name: "list_sites, second page of one",
        tool: "list_sites",
        request: () => ({ path: "/sites?per_page=1&page=2", args: { per_page: 1, page: 2 } })
      },
      {
        name: "list_articles",
        tool: "list_articles",
        request: ({ site }) => ({ path: `/sites/${site}/articles`, args: { site_id: site } })
      },
      {
        name: "list_articles filtered by status and dates, one per page",
        tool: "list_articles",
        request: ({ site }) => ({
          path: `/sites/${site}/articles?status=published&from=2026-10-01&to=2026-10-31&per_page=1`,
          args: { site_id: site, status: "published", from: "2026-10-01", to: "2026-10-31", per_page: 1 }
        })
      },
      {
        name: "get_article",
        tool: "get_article",
        request: ({ linked }) => ({ path: `/articles/${linked}`, args: { article_id: linked } })
      },
      {
        name: "list_backlinks",
        tool: "list_backlinks",
        request: ({ site }) => ({ path: `/sites/${site}/backlinks`, args: { site_id: site } })
      },
      {
        name: "list_backlinks from a date",
        tool: "list_backlinks",
        request: ({ site }) => ({
          path: `/sites/${site}/backlinks?from=2026-10-03&page=1&per_page=5`,
          args: { site_id: site, from: "2026-10-03", page: 1, per_page: 5 }
        })
      },
      {
        name: "get_stats for the default period",
        tool: "get_stats",
        request: ({ site }) => ({ path: `/sites/${site}/stats`, args: { site_id: site } })
      },
      {
        name: "get_stats for a month",
        tool: "get_stats",
        request: ({ site }) => ({
          path: `/sites/${site}/stats?period=2026-10`,
          args: { site_id: site, period: "2026-10" }
        })
      },
      {
        name: "get_stats from/to",
        tool: "get_stats",
        request: ({ site }) => ({
          path: `/sites/${site}/stats?from=2026-09-15&to=2026-10-02`,
          args: { site_id: site, from: "2026-09-15", to: "2026-10-02" }
        })
      }
    ]

    for (const { name, tool, request } of cases) {
      it.effect(`${name}: the tool's structured content deep-equals the REST endpoint's JSON`, () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const fixtures = yield* makeFixtures(session.accountId)
          const key = yield* app.makeKey(session.accountId)
          const { path, args } = request(fixtures)
          const viaRest = yield* rest(key, path)
          assert.strictEqual(viaRest.status, 200, JSON.stringify(viaRest.body))
          const viaMcp = yield* toolData(session, tool, args)
          assert.deepStrictEqual(viaMcp, viaRest.body)
          yield* readRowsWritten
          // The two calls are logged alike: same status and article, each with its own door.
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ origin: string; tool: string | null; status: number; article_id: number | null }>`
            select origin, tool, status, article_id from audit_log
            where account_id = ${session.accountId} order by id desc limit 2`.pipe(Effect.orDie)
          assert.deepStrictEqual(rows[0], {
            origin: "MCP",
            tool,
            status: 200,
            article_id: rows[1]!.article_id
          })
          assert.strictEqual(rows[1]!.origin, "API")
          // Something real was compared.
          const data = viaRest.body.data
          assert.isTrue(Array.isArray(data) ? data.length > 0 : typeof data === "object" && data !== null)
        })
      )
    }

    it.effect(
      "an error is the same error through REST and MCP: missing article, another account's site, bad paging",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const app = yield* TestApp
          const key = yield* app.makeKey(session.accountId)
          const { site: foreignSite } = yield* foreignArticle
          const own = yield* app.makeSite(session.accountId)
          const cases: ReadonlyArray<readonly [string, string, Record<string, unknown>, number]> = [
            ["get_article", "/articles/999999999", { article_id: 999_999_999 }, 404],
            ["list_articles", `/sites/${foreignSite}/articles`, { site_id: foreignSite }, 404],
            ["get_stats", `/sites/${foreignSite}/stats`, { site_id: foreignSite }, 404],
            ["list_backlinks", `/sites/${own}/backlinks?per_page=101`, { site_id: own, per_page: 101 }, 422]
          ]
          for (const [tool, path, args, status] of cases) {
            const viaRest = yield* rest(key, path)
            assert.strictEqual(viaRest.status, status, path)
            const viaMcp = yield* toolError(session, tool, args)
            assert.strictEqual(viaMcp.error, viaRest.body.error, tool)
            assert.strictEqual(viaMcp.limit, viaRest.body.limit, `${tool}: limit`)
          }
        })
    )
  })

  describe("one definition, every door", () => {
    /** A write through REST with an API key: status and JSON body. */
    const restWrite = (key: string, method: string, path: string, json: unknown) =>
      request(method, `/api/v1${path}`, { bearer: key, json })

    /** The call-log rows and revisions of an article, oldest first, without ids, times and who. */
    const storyOf = (articleId: ArticleId) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const calls = yield* sql<{ origin: string; method: string | null; tool: string | null; status: number }>`
          select origin, method, tool, status from audit_log where article_id = ${articleId} order by id`.pipe(
          Effect.orDie
        )
        const revisions = yield* sql<{ number: number; origin: string; reason: string | null; title: string | null }>`
          select number, origin, reason, title from article_revisions where article_id = ${articleId}
          order by number`.pipe(Effect.orDie)
        return { calls, revisions }
      })

    // Every tool's entry is sent to the model on every turn: each stays within its budget, so that new tools can come.
    it.effect(
      "tools/list has no schema titles, no HTTP wording, and each tool's entry is within 4,000 characters",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const { mcpUrl } = yield* mcpAddress
          const reply = yield* postRpc(mcpUrl, session.token, toolsList)
          assert.strictEqual(reply.status, 200)
          const tools = JSON.parse(reply.text).result.tools as ReadonlyArray<Record<string, unknown>>
          for (const tool of tools) {
            assert.isAtMost(JSON.stringify(tool).length, TOOL_ENTRY_BUDGET, String(tool["name"]))
          }
          assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), toolNames)
          const text = JSON.stringify(tools)
          for (const label of [
            "positive",
            "int",
            "nonNegative",
            "maxLength(",
            "minLength(",
            "itemsCount(",
            "maxItems("
          ]) {
            assert.notInclude(text, `"title":"${label}`, label)
          }
          for (const wording of [
            /multipart/i,
            /form-data/i,
            /\bheader/i,
            /\bHTTP\b/,
            /\b(GET|PUT|PATCH|POST)\b/,
            /\b[45]\d\d [a-z]+_[a-z_]+/,
            /API key/i,
            /key's/,
            /origin API/
          ]) {
            assert.notMatch(text, wording, String(wording))
          }
        })
    )

    it.effect(
      "each listed tool has the arguments its endpoints derive (path, query, header and payload parameters)",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const session = yield* sharedSession
          const { mcpUrl } = yield* mcpAddress
          const reply = yield* postRpc(mcpUrl, session.token, toolsList)
          const tools = JSON.parse(reply.text).result.tools as ReadonlyArray<{
            readonly name: string
            readonly inputSchema: { readonly properties: Record<string, unknown>; readonly required?: Array<string> }
            readonly outputSchema: { readonly properties: Record<string, unknown> }
          }>
          const byName = new Map(tools.map((tool) => [tool.name, tool]))
          assert.sameMembers([...byName.keys()], toolNames)
          for (const derived of serviceTools) {
            const tool = byName.get(derived.name)!
            assert.sameMembers(
              Object.keys(tool.inputSchema.properties),
              Object.keys(derived.inputSchema["properties"] as object),
              derived.name
            )
            assert.deepStrictEqual(tool.inputSchema.required, derived.inputSchema["required"], derived.name)
            assert.isDefined(tool.outputSchema.properties["data"], derived.name)
          }
          assert.deepStrictEqual(byName.get("update_article")!.inputSchema.required, ["article_id"])
        })
    )

    it.effect("a tool's call-log row and revision equal its endpoint's, with origin MCP and the tool's name", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const app = yield* TestApp
        const fixtures = yield* makeFixtures(session.accountId)
        const id = fixtures.later
        const viaRest = yield* restWrite(session.key, "PATCH", `/articles/${id}`, { title: "By REST", reason: "r1" })
        assert.strictEqual(viaRest.status, 200)
        const viaMcp = yield* toolData(session, "update_article", { article_id: id, title: "By MCP", reason: "r2" })
        assert.strictEqual(viaMcp.data.title, "By MCP")
        yield* toolError(session, "update_article", { article_id: id, replacements: [{ find: "absent" }] })
        yield* rest(session.key, `/articles/${id}`)
        yield* toolData(session, "get_article", { article_id: id })
        yield* readRowsWritten
        const { calls, revisions } = yield* storyOf(id)
        assert.deepStrictEqual(calls, [
          { origin: "API", method: "PATCH", tool: null, status: 200 },
          { origin: "MCP", method: null, tool: "update_article", status: 200 },
          { origin: "MCP", method: null, tool: "update_article", status: 409 },
          { origin: "API", method: "GET", tool: null, status: 200 },
          { origin: "MCP", method: null, tool: "get_article", status: 200 }
        ])
        assert.deepStrictEqual(
          revisions.map(({ origin, reason, title }) => ({ origin, reason, title })),
          [
            { origin: "API", reason: "r1", title: "By REST" },
            { origin: "MCP", reason: "r2", title: "By MCP" }
          ]
        )
        void app
      })
    )

    it.effect("unknown fields at any depth are validation_error naming their path, through REST and MCP alike", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { later } = yield* makeFixtures(session.accountId)
        const before = yield* storedArticle(later)
        const typo = { replacements: [{ find: "boilers", replacement: "radiators" }] }
        const viaRest = yield* restWrite(session.key, "PATCH", `/articles/${later}`, typo)
        assert.strictEqual(viaRest.status, 422)
        assert.strictEqual(viaRest.body.error, "validation_error")
        assert.include(viaRest.body.message, "replacements.0.replacement")
        const viaMcp = yield* toolError(session, "update_article", { article_id: later, ...typo })
        assert.deepStrictEqual(viaMcp, viaRest.body)
        const titel = yield* restWrite(session.key, "PATCH", `/articles/${later}`, { titel: "New" })
        assert.strictEqual(titel.status, 422)
        assert.include(titel.body.message, "titel")
        const titelMcp = yield* toolError(session, "update_article", { article_id: later, titel: "New" })
        assert.strictEqual(titelMcp.error, "validation_error")
        assert.include(titelMcp.message, "titel")
        const mixed = yield* toolError(session, "update_article", {
          article_id: later,
          body: "<p>New.</p>",
          meta_description: "x"
        })
        assert.strictEqual(mixed.error, "validation_error")
        assert.include(mixed.message, "meta_description")
        assert.deepStrictEqual(yield* storedArticle(later), before)
      })
    )

    it.effect("a 9 MiB image through replace_featured_image lands; an 11 MiB one is image_too_large", () =>
      Effect.gen(function* () {
        yield* startClock
        const session = yield* sharedSession
        const { later } = yield* makeFixtures(session.accountId)
        const png = Buffer.from(PNG_BASE64, "base64")
        const padded = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length)]).toString("base64")
        const landed = yield* toolData(session, "replace_featured_image", {
          article_id: later,
          image: padded(9 * 1024 * 1024)
        })
        assert.match(landed.data.featured_image_url, /\/media\/[0-9a-f]{64}\.png$/)
        const refused = yield* toolError(session, "replace_featured_image", {
          article_id: later,
          image: padded(11 * 1024 * 1024)
        })
        assert.strictEqual(refused.error, "image_too_large")
        assert.strictEqual(refused.limit, 10 * 1024 * 1024)
      })
    )
  })
})
