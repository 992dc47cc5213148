import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { BacklinkId, SiteId } from "../src/Domain/Ids.js"
import {
  type BacklinkFields,
  getWithKey as get,
  siteOfNewAccount,
  TestApp,
  TestServerLive
} from "./support/TestServer.js"

/** Creates backlinks in order; their ids, in the same order. */
const makeBacklinks = (siteId: SiteId, fields: ReadonlyArray<BacklinkFields>) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const ids: Array<BacklinkId> = []
    for (const f of fields) ids.push(yield* app.makeBacklink(siteId, f))
    return ids
  })

const idsOf = (body: { readonly data: ReadonlyArray<{ readonly id: number }> }) => body.data.map((item) => item.id)

const assertValidationError = (result: { readonly status: number; readonly body: { readonly error?: unknown } }) => {
  assert.strictEqual(result.status, 422)
  assert.strictEqual(result.body.error, "validation_error")
}

const assertNotFound = (result: { readonly status: number; readonly body: { readonly error?: unknown } }) => {
  assert.strictEqual(result.status, 404)
  assert.strictEqual(result.body.error, "not_found")
}

/**
 * Runs `effect` with every pooled database session set to `timeZone`, then sets them back to UTC. The concurrent
 * sleeping statements occupy every connection of the pool at once, so each one gets the setting.
 */
const withSessionTimeZone = <A, E, R>(timeZone: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const setAll = (zone: string) =>
      Effect.all(
        Array.from({ length: 5 }, () => sql`select set_config('TimeZone', ${zone}, false), pg_sleep(0.2)`),
        { concurrency: "unbounded", discard: true }
      ).pipe(Effect.orDie)
    yield* setAll(timeZone)
    return yield* effect.pipe(Effect.ensuring(setAll("UTC")))
  })

/** Backlinks around the 2026-10-10 .. 2026-10-12 window. */
const dateFixture = (siteId: SiteId) =>
  Effect.gen(function* () {
    const [before, firstDay, lastDay, after] = yield* makeBacklinks(siteId, [
      { acquired_at: "2026-10-09T23:59:59Z" },
      { acquired_at: "2026-10-10T00:00:00Z" },
      { acquired_at: "2026-10-12T23:59:59Z" },
      { acquired_at: "2026-10-13T00:00:00Z" }
    ])
    return { before: before!, firstDay: firstDay!, lastDay: lastDay!, after: after! }
  })

layer(TestServerLive)("GET /api/v1/sites/{id}/backlinks", (it) => {
  describe("fields and order", () => {
    it.effect("returns every Backlink field with acquired_at as an RFC 3339 UTC timestamp", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const industry = yield* app.makeBacklink(siteId, {
          acquired_at: "2026-11-03T09:30:00Z",
          source_domain: "news.example.org",
          source_url: "https://news.example.org/best-plumbers",
          target_url: "https://example.com/",
          anchor_text: "Example Plumbing",
          anchor_type: "branded",
          status: "live",
          category: "industry"
        })
        const local = yield* app.makeBacklink(siteId, {
          acquired_at: "2026-11-02T10:30:00+01:00",
          source_domain: null,
          source_url: null,
          target_url: null,
          anchor_text: null,
          anchor_type: null,
          status: null,
          category: "local"
        })
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/backlinks`, key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body.data, [
          {
            id: industry,
            acquired_at: "2026-11-03T09:30:00Z",
            source_domain: "news.example.org",
            source_url: "https://news.example.org/best-plumbers",
            target_url: "https://example.com/",
            anchor_text: "Example Plumbing",
            anchor_type: "branded",
            status: "live",
            category: "industry"
          },
          {
            id: local,
            acquired_at: "2026-11-02T09:30:00Z",
            source_domain: null,
            source_url: null,
            target_url: null,
            anchor_text: null,
            anchor_type: null,
            status: null,
            category: "local"
          }
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
        const { body } = yield* get(`/api/v1/sites/${siteId}/backlinks`, key)
        assert.deepStrictEqual(idsOf(body), [latest, middle, earlyTwin, early])
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
        const { body } = yield* get(`/api/v1/sites/${siteA}/backlinks`, key)
        assert.deepStrictEqual(idsOf(body), [onA])
        assert.strictEqual(body.meta.total, 1)
      })
    )
  })

  describe("pagination", () => {
    it.effect("defaults to per_page 20: 21 backlinks are 20 on page 1 and 1 on page 2", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const ids = yield* makeBacklinks(
          siteId,
          Array.from({ length: 21 }, (_, i) => ({ acquired_at: `2026-10-${String(i + 1).padStart(2, "0")}T08:00:00Z` }))
        )
        const newestFirst = [...ids].reverse()
        const first = yield* get(`/api/v1/sites/${siteId}/backlinks`, key)
        assert.deepStrictEqual(first.body.meta, { page: 1, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(idsOf(first.body), newestFirst.slice(0, 20))
        const second = yield* get(`/api/v1/sites/${siteId}/backlinks?page=2`, key)
        assert.deepStrictEqual(second.body.meta, { page: 2, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(idsOf(second.body), newestFirst.slice(20))
      })
    )

    it.effect("last_page is max(1, ceil(total / per_page))", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const empty = yield* get(`/api/v1/sites/${siteId}/backlinks?per_page=4`, key)
        assert.deepStrictEqual(empty.body, { data: [], meta: { page: 1, per_page: 4, total: 0, last_page: 1 } })
        yield* makeBacklinks(
          siteId,
          Array.from({ length: 9 }, () => ({}))
        )
        const cases: ReadonlyArray<readonly [number, number]> = [
          [4, 3],
          [3, 3],
          [9, 1],
          [1, 9]
        ]
        for (const [perPage, lastPage] of cases) {
          const { body } = yield* get(`/api/v1/sites/${siteId}/backlinks?per_page=${perPage}`, key)
          assert.deepStrictEqual(body.meta, { page: 1, per_page: perPage, total: 9, last_page: lastPage })
        }
        const lastPage = yield* get(`/api/v1/sites/${siteId}/backlinks?per_page=4&page=3`, key)
        assert.strictEqual(lastPage.body.data.length, 1)
      })
    )

    it.effect("a page past last_page returns data [] with the correct meta", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        yield* makeBacklinks(siteId, [{}, {}, {}])
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/backlinks?per_page=2&page=4`, key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body, { data: [], meta: { page: 4, per_page: 2, total: 3, last_page: 2 } })
      })
    )

    it.effect("GET /sites/{id}/backlinks with per_page=101 is 422 validation_error with limit 100", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const result = yield* get(`/api/v1/sites/${siteId}/backlinks?per_page=101`, key)
        assertValidationError(result)
        assert.strictEqual(result.body.limit, 100)
      })
    )

    for (const query of ["per_page=0", "per_page=3.5", "per_page=many", "page=0", "page=-2", "page=2.5"]) {
      it.effect(`GET /sites/{id}/backlinks with ${query} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/backlinks?${query}`, key))
        })
      )
    }
  })

  describe("date filters", () => {
    it.effect("from and to are inclusive UTC days on acquired_at", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const f = yield* dateFixture(siteId)
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/backlinks?from=2026-10-10&to=2026-10-12`, key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(idsOf(body), [f.lastDay, f.firstDay])
        assert.deepStrictEqual(body.meta, { page: 1, per_page: 20, total: 2, last_page: 1 })
      })
    )

    it.effect("from alone bounds only the start", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const f = yield* dateFixture(siteId)
        const { body } = yield* get(`/api/v1/sites/${siteId}/backlinks?from=2026-10-10`, key)
        assert.deepStrictEqual(idsOf(body), [f.after, f.lastDay, f.firstDay])
      })
    )

    it.effect("to alone bounds only the end", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const f = yield* dateFixture(siteId)
        const { body } = yield* get(`/api/v1/sites/${siteId}/backlinks?to=2026-10-12`, key)
        assert.deepStrictEqual(idsOf(body), [f.lastDay, f.firstDay, f.before])
      })
    )

    it.effect("from and to are UTC days whatever the database session's TimeZone setting", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const f = yield* dateFixture(siteId)
        const { body } = yield* withSessionTimeZone(
          "Pacific/Kiritimati",
          get(`/api/v1/sites/${siteId}/backlinks?from=2026-10-10&to=2026-10-12`, key)
        )
        assert.deepStrictEqual(idsOf(body), [f.lastDay, f.firstDay])
      })
    )

    it.effect("a date filter combines with pagination: total counts only the matching backlinks", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const f = yield* dateFixture(siteId)
        const { body } = yield* get(`/api/v1/sites/${siteId}/backlinks?from=2026-10-10&per_page=2&page=2`, key)
        assert.deepStrictEqual(idsOf(body), [f.firstDay])
        assert.deepStrictEqual(body.meta, { page: 2, per_page: 2, total: 3, last_page: 2 })
      })
    )

    for (const [name, query] of [
      ["a malformed from (2026-10-1)", "from=2026-10-1"],
      ["a malformed to (yesterday)", "to=yesterday"],
      ["an impossible from (2026-02-30)", "from=2026-02-30"],
      ["an impossible to (2026-13-01)", "to=2026-13-01"],
      ["from after to", "from=2026-10-13&to=2026-10-12"]
    ] as const) {
      it.effect(`GET /sites/{id}/backlinks with ${name} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/backlinks?${query}`, key))
        })
      )
    }
  })

  describe("path ids", () => {
    for (const id of ["abc", "0", "-1", "1.5", "99999999999999999999999"]) {
      it.effect(`GET /sites/${id}/backlinks is 404 not_found, never 500`, () =>
        Effect.gen(function* () {
          const { key } = yield* siteOfNewAccount
          assertNotFound(yield* get(`/api/v1/sites/${id}/backlinks`, key))
        })
      )
    }

    it.effect("a website id that does not exist is 404 not_found", () =>
      Effect.gen(function* () {
        const { key } = yield* siteOfNewAccount
        assertNotFound(yield* get("/api/v1/sites/999999999/backlinks", key))
      })
    )
  })
})
