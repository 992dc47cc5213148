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

/** The test's start, with the file's signed-in user. */
const started = Effect.zipRight(startClock, sharedSession)

/** The test's start, with the file's signed-in user and a new API key of its account for the REST side. */
const startedWithKey = Effect.gen(function* () {
  const session = yield* started
  const app = yield* TestApp
  return { session, app, key: yield* app.makeKey(session.accountId) }
})

/** What tools/list answers the file's user. */
const listedTools = Effect.gen(function* () {
  const session = yield* started
  const { mcpUrl } = yield* mcpAddress
  const reply = yield* postRpc(mcpUrl, session.token, toolsList)
  assert.strictEqual(reply.status, 200)
  return JSON.parse(reply.text).result.tools as ReadonlyArray<unknown>
})

/** The REST path a tool call stands for: its endpoint, with the id it names in the path and the rest as the query. */
const restPathOf = (tool: string, args: Record<string, unknown>) => {
  const { site_id, article_id, ...query } = args
  const paths: Record<string, string> = {
    list_sites: "/sites",
    list_articles: `/sites/${site_id}/articles`,
    get_article: `/articles/${article_id}`,
    list_backlinks: `/sites/${site_id}/backlinks`,
    get_stats: `/sites/${site_id}/stats`
  }
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]))
  return search.size === 0 ? paths[tool]! : `${paths[tool]!}?${search}`
}

/** A GET of the REST API with an API key; status and JSON body. */
const rest = (key: string, path: string) => request("GET", `/api/v1${path}`, { bearer: key })

layer(TestServerLive)("MCP interface", (it) => {
  describe("parity with the REST API", () => {
    const cases: ReadonlyArray<readonly [string, string, (fixtures: Fixtures) => Record<string, unknown>]> = [
      ["list_sites", "list_sites", () => ({})],
      ["list_sites, second page of one", "list_sites", () => ({ per_page: 1, page: 2 })],
      ["list_articles", "list_articles", ({ site }) => ({ site_id: site })],
      [
        "list_articles filtered by status and dates, one per page",
        "list_articles",
        ({ site }) => ({ site_id: site, status: "published", from: "2026-10-01", to: "2026-10-31", per_page: 1 })
      ],
      ["get_article", "get_article", ({ linked }) => ({ article_id: linked })],
      ["list_backlinks", "list_backlinks", ({ site }) => ({ site_id: site })],
      [
        "list_backlinks from a date",
        "list_backlinks",
        ({ site }) => ({ site_id: site, from: "2026-10-03", page: 1, per_page: 5 })
      ],
      ["get_stats for the default period", "get_stats", ({ site }) => ({ site_id: site })],
      ["get_stats for a month", "get_stats", ({ site }) => ({ site_id: site, period: "2026-10" })],
      ["get_stats from/to", "get_stats", ({ site }) => ({ site_id: site, from: "2026-09-15", to: "2026-10-02" })]
    ]

    for (const [name, tool, argsOf] of cases) {
      it.effect(`${name}: the tool's structured content deep-equals the REST endpoint's JSON`, () =>
        Effect.gen(function* () {
          const { session, key } = yield* startedWithKey
          const fixtures = yield* makeFixtures(session.accountId)
          const args = argsOf(fixtures)
          const path = restPathOf(tool, args)
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
          const { session, app, key } = yield* startedWithKey
          const { site: foreignSite } = yield* foreignArticle
          const own = yield* app.makeSite(session.accountId)
          const cases: ReadonlyArray<readonly [string, Record<string, unknown>, number]> = [
            ["get_article", { article_id: 999_999_999 }, 404],
            ["list_articles", { site_id: foreignSite }, 404],
            ["get_stats", { site_id: foreignSite }, 404],
            ["list_backlinks", { site_id: own, per_page: 101 }, 422]
          ]
          for (const [tool, args, status] of cases) {
            const path = restPathOf(tool, args)
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
          const tools = (yield* listedTools) as ReadonlyArray<Record<string, unknown>>
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
          const tools = (yield* listedTools) as ReadonlyArray<{
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
        const session = yield* started
        const { later: id } = yield* makeFixtures(session.accountId)
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
      })
    )

    it.effect("unknown fields at any depth are validation_error naming their path, through REST and MCP alike", () =>
      Effect.gen(function* () {
        const session = yield* started
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
        const session = yield* started
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
