import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { NotFound } from "../src/Domain/Errors.js"
import { SiteId } from "../src/Domain/Ids.js"
import type { BacklinksQuery } from "../src/Domain/Queries.js"
import { apiClient, failureOf } from "./support/ApiClient.js"
import { assertError } from "./support/ArticleWrites.js"
import { dateFilterContract } from "./support/DateFilterContract.js"
import { listContract, listedIds } from "./support/ListContract.js"
import {
  type BacklinkFields,
  getWithKey as get,
  siteOfNewAccount,
  TestApp,
  TestServerLive
} from "./support/TestServer.js"

/** Creates backlinks in order; their ids, in the same order. */
const makeBacklinks = (siteId: SiteId, fields: ReadonlyArray<BacklinkFields>) =>
  Effect.flatMap(TestApp, (app) => Effect.forEach(fields, (f) => app.makeBacklink(siteId, f)))

/** A website's backlinks through the typed client; page 1 of 20 unless `query` says otherwise. */
const listBacklinks = (key: string, siteId: SiteId, query: Partial<BacklinksQuery> = {}) =>
  Effect.gen(function* () {
    const client = yield* apiClient(key)
    return yield* client.backlinks.listBacklinks({
      path: { id: siteId },
      urlParams: { page: 1, per_page: 20, ...query }
    })
  })

layer(TestServerLive)("GET /api/v1/sites/{id}/backlinks", (it) => {
  listContract(it, {
    endpoint: "GET /sites/{id}/backlinks",
    listWith: (count) =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        // Shared acquired_at dates, so that every page depends on the id tie-break of the order.
        yield* makeBacklinks(
          siteId,
          Array.from({ length: count }, (_, i) => ({ acquired_at: `2026-10-0${1 + (i % 2)}T08:00:00Z` }))
        )
        const client = yield* apiClient(key)
        return {
          key,
          path: `/api/v1/sites/${siteId}/backlinks`,
          list: (page) => client.backlinks.listBacklinks({ path: { id: siteId }, urlParams: page })
        }
      })
  })

  describe("fields and order", () => {
    it.effect("returns every Backlink field with acquired_at as an RFC 3339 UTC timestamp", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const full = {
          acquired_at: "2026-11-03T09:30:00Z",
          source_domain: "news.example.org",
          source_url: "https://news.example.org/best-plumbers",
          target_url: "https://example.com/",
          anchor_text: "Example Plumbing",
          anchor_type: "branded",
          status: "live",
          category: "industry"
        } as const
        const bare = {
          source_domain: null,
          source_url: null,
          target_url: null,
          anchor_text: null,
          anchor_type: null,
          status: null,
          category: "local"
        } as const
        const industry = yield* app.makeBacklink(siteId, full)
        const local = yield* app.makeBacklink(siteId, { ...bare, acquired_at: "2026-11-02T10:30:00+01:00" })
        // The JSON as sent: the typed client would drop a field the schema does not know.
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/backlinks`, key)
        assert.strictEqual(status, 200)
        // Neither has been checked yet: their health is not known.
        const unchecked = { last_checked_at: null, lost_reason: null, rel: [], indexable: null }
        assert.deepStrictEqual(body.data, [
          { id: industry, ...full, ...unchecked },
          { id: local, ...bare, acquired_at: "2026-11-02T09:30:00Z", ...unchecked }
        ])
      })
    )

    it.effect("orders by acquired_at descending, then id descending", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const [early, latest, earlyTwin, middle] = yield* makeBacklinks(siteId, [
          { acquired_at: "2026-10-01T08:00:00Z" },
          { acquired_at: "2026-10-05T12:00:00Z" },
          { acquired_at: "2026-10-01T08:00:00Z" },
          { acquired_at: "2026-10-03T00:00:00Z" }
        ])
        const page = yield* listBacklinks(key, siteId)
        assert.deepStrictEqual(listedIds(page), [latest, middle, earlyTwin, early])
      })
    )

    it.effect("lists only the requested website's backlinks", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const siteA = yield* app.makeSite(accountId)
        const siteB = yield* app.makeSite(accountId)
        const [onA] = yield* makeBacklinks(siteA, [{}])
        yield* makeBacklinks(siteB, [{}, {}])
        const page = yield* listBacklinks(key, siteA)
        assert.deepStrictEqual(listedIds(page), [onA])
        assert.strictEqual(page.meta.total, 1)
      })
    )
  })

  dateFilterContract(it, {
    endpoint: "GET /sites/{id}/backlinks",
    field: "acquired_at",
    nullable: false,
    listWith: (times) =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const ids = yield* makeBacklinks(
          siteId,
          times.map((acquired_at) => ({ acquired_at }))
        )
        return {
          key,
          path: `/api/v1/sites/${siteId}/backlinks`,
          ids,
          list: (query) => listBacklinks(key, siteId, query)
        }
      }),
    refused: [
      ["a malformed from (2026-10-1)", "from=2026-10-1"],
      ["a malformed to (yesterday)", "to=yesterday"],
      ["an impossible from (2026-02-30)", "from=2026-02-30"],
      ["an impossible to (2026-13-01)", "to=2026-13-01"],
      ["from after to", "from=2026-10-13&to=2026-10-12"]
    ]
  })

  describe("path ids", () => {
    for (const id of ["abc", "0", "-1", "1.5", "99999999999999999999999"]) {
      it.effect(`GET /sites/${id}/backlinks is 404 not_found, never 500`, () =>
        Effect.gen(function* () {
          const { key } = yield* siteOfNewAccount
          assertError(yield* get(`/api/v1/sites/${id}/backlinks`, key), 404, "not_found")
        })
      )
    }

    it.effect("a website id that does not exist is 404 not_found", () =>
      Effect.gen(function* () {
        const { key } = yield* siteOfNewAccount
        assert.instanceOf(yield* failureOf(listBacklinks(key, SiteId.make(999999999))), NotFound)
      })
    )
  })
})
