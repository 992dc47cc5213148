// @tags: engine
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { getWithKey as get, siteOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

/**
 * Dates at the ends of the calendar the interface takes (years 0001 to 9999), written as plain strings: a test
 * that built them with `Date.UTC` would fall into the very trap it checks (years 0 to 99 read as 1900 to 1999).
 */

/** An article and a backlink on the first and on the last instant of each given UTC day. */
const edgesOf = (siteId: SiteId, days: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    for (const day of days) {
      for (const instant of [`${day}T00:00:00Z`, `${day}T23:59:59Z`]) {
        yield* app.makeArticle(siteId, { published_at: instant })
        yield* app.makeBacklink(siteId, { acquired_at: instant, category: "industry" })
      }
    }
  })

const publishedAt = (body: { readonly data: ReadonlyArray<{ readonly published_at: string }> }) =>
  body.data.map((article) => article.published_at)

const acquiredAt = (body: { readonly data: ReadonlyArray<{ readonly acquired_at: string }> }) =>
  body.data.map((backlink) => backlink.acquired_at)

const assertValidationError = (result: { readonly status: number; readonly body: { readonly error?: unknown } }) => {
  assert.strictEqual(result.status, 422)
  assert.strictEqual(result.body.error, "validation_error")
}

layer(TestServerLive)("dates at the ends of years 0001-9999", (it) => {
  describe("lists", () => {
    for (const [list, datesOf] of [
      ["articles", publishedAt],
      ["backlinks", acquiredAt]
    ] as const) {
      it.effect(`GET ${list} with to=9999-12-31 answers 200 and includes the last second of year 9999`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          yield* edgesOf(siteId, ["9999-12-30", "9999-12-31"])
          const { status, body } = yield* get(`/api/v1/sites/${siteId}/${list}?from=9999-12-31&to=9999-12-31`, key)
          assert.strictEqual(status, 200)
          assert.deepStrictEqual(datesOf(body), ["9999-12-31T23:59:59Z", "9999-12-31T00:00:00Z"])
          const toAlone = yield* get(`/api/v1/sites/${siteId}/${list}?to=9999-12-31`, key)
          assert.strictEqual(toAlone.status, 200)
          assert.strictEqual(toAlone.body.meta.total, 4)
        })
      )
    }

    it.effect("GET articles and backlinks over 0001-01-01 and over March of year 50 take the years literally", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        yield* edgesOf(siteId, ["0001-01-01", "0050-03-01", "0050-03-31", "1950-03-15"])
        const first = yield* get(`/api/v1/sites/${siteId}/articles?from=0001-01-01&to=0001-01-01`, key)
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual(publishedAt(first.body), ["0001-01-01T23:59:59Z", "0001-01-01T00:00:00Z"])
        const march50 = yield* get(`/api/v1/sites/${siteId}/backlinks?from=0050-03-01&to=0050-03-31`, key)
        assert.strictEqual(march50.status, 200)
        assert.deepStrictEqual(acquiredAt(march50.body), [
          "0050-03-31T23:59:59Z",
          "0050-03-31T00:00:00Z",
          "0050-03-01T23:59:59Z",
          "0050-03-01T00:00:00Z"
        ])
      })
    )

    for (const path of ["articles", "backlinks"]) {
      it.effect(`GET ${path} with a date in year 0000 is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/${path}?from=0000-12-31`, key))
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/${path}?to=0000-01-01`, key))
        })
      )
    }
  })

  describe("stats", () => {
    // `live`: the website's backlinks that are live now, whenever acquired (all of them here).
    const counts = (siteId: SiteId, from: string, to: string, articles: number, live: number) => ({
      data: {
        site_id: siteId,
        from,
        to,
        articles_published: articles,
        backlinks_acquired: articles,
        backlinks_industry: articles,
        backlinks_local: 0,
        backlinks_live: live,
        backlinks_lost: 0
      }
    })

    for (const { name, days, query, counted } of [
      {
        name: "period=9999-12 answers 200 and counts December 9999 up to its last second",
        days: ["9999-11-30", "9999-12-01", "9999-12-31"],
        query: "period=9999-12",
        counted: ["9999-12-01", "9999-12-31", 4]
      },
      {
        name: "period=9999-12-31 answers 200 and counts that whole day",
        days: ["9999-12-30", "9999-12-31"],
        query: "period=9999-12-31",
        counted: ["9999-12-31", "9999-12-31", 2]
      },
      {
        name: "from=0001-01-01&to=9999-12-31 answers 200 and counts everything",
        days: ["0001-01-01", "2026-10-10", "9999-12-31"],
        query: "from=0001-01-01&to=9999-12-31",
        counted: ["0001-01-01", "9999-12-31", 6]
      },
      {
        name: "period=0050-03 is March of year 50, not of 1950",
        days: ["0050-02-28", "0050-03-01", "0050-03-31", "0050-04-01", "1950-03-15"],
        query: "period=0050-03",
        counted: ["0050-03-01", "0050-03-31", 4]
      },
      {
        name: "a day period in year 50 (0050-03-01) counts that day only",
        days: ["0050-02-28", "0050-03-01", "0050-03-02"],
        query: "period=0050-03-01",
        counted: ["0050-03-01", "0050-03-01", 2]
      }
    ] as const) {
      it.effect(name, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          yield* edgesOf(siteId, days)
          const { status, body } = yield* get(`/api/v1/sites/${siteId}/stats?${query}`, key)
          assert.strictEqual(status, 200)
          assert.deepStrictEqual(body, counts(siteId, counted[0], counted[1], counted[2], 2 * days.length))
        })
      )
    }

    it.effect("month periods of early years end on their real last day (0004-02 leap, 0100-02 not, 0001-01)", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        for (const [period, from, to] of [
          ["0004-02", "0004-02-01", "0004-02-29"],
          ["0100-02", "0100-02-01", "0100-02-28"],
          ["0400-02", "0400-02-01", "0400-02-29"],
          ["0001-01", "0001-01-01", "0001-01-31"]
        ] as const) {
          const { status, body } = yield* get(`/api/v1/sites/${siteId}/stats?period=${period}`, key)
          assert.strictEqual(status, 200, period)
          assert.deepStrictEqual([body.data.from, body.data.to], [from, to], period)
        }
      })
    )

    for (const [name, query] of [
      ["a month period in year 0000", "period=0000-03"],
      ["a day period in year 0000", "period=0000-03-01"],
      ["from in year 0000", "from=0000-12-31&to=0001-01-01"]
    ] as const) {
      it.effect(`GET stats with ${name} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/stats?${query}`, key))
        })
      )
    }
  })
})
