// @tags: engine runtime
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { NotFound } from "../src/Domain/Errors.js"
import { SiteId } from "../src/Domain/Ids.js"
import { MAX_STATS_MONTHS, type StatsQuery } from "../src/Domain/Queries.js"
import { apiClient, failureOf } from "./support/ApiClient.js"
import { newMcpSession } from "./support/McpSession.js"
import { withSessionTimeZone } from "./support/SessionTimeZone.js"
import { getWithKey as get, siteOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

const assertValidationError = (result: { readonly status: number; readonly body: { readonly error?: unknown } }) => {
  assert.strictEqual(result.status, 422)
  assert.strictEqual(result.body.error, "validation_error")
}

/** A website's counts through the typed client. */
const getStats = (key: string, siteId: SiteId, query: StatsQuery = {}) =>
  Effect.gen(function* () {
    const client = yield* apiClient(key)
    return yield* client.stats.getStats({ path: { id: siteId }, urlParams: query })
  })

/** The first and last day an answer counts. */
const assertDays = (
  body: { readonly data: { readonly from: string; readonly to: string } },
  from: string,
  to: string
) => {
  assert.strictEqual(body.data.from, from)
  assert.strictEqual(body.data.to, to)
}

/** `YYYY-MM-DD` of a UTC date. */
const day = (date: Date) => date.toISOString().slice(0, 10)
/** The UTC day `offset` days after `date`'s. */
const addDays = (date: Date, offset: number) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + offset))
/** First and last day of the UTC month `offset` months after `date`'s. */
const monthOf = (date: Date, offset: number) => ({
  first: new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1)),
  last: new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset + 1, 0))
})
const startOf = (date: Date) => `${day(date)}T00:00:00Z`
const endOf = (date: Date) => `${day(date)}T23:59:59Z`

/**
 * Puts, for the inclusive range `first`..`last`, articles and backlinks on both edges (counted) and just outside
 * them (not counted): 2 articles, 3 industry and 2 local backlinks inside. Also an article and a backlink without
 * a date, which no range counts, and a scheduled and a draft article dated inside, which are not published. Of the
 * backlinks, one inside is pending and two outside (one undated) are lost: 5 live and 2 lost now, whatever the range.
 */
const rangeFixture = (siteId: SiteId, first: Date, last: Date) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const dayBefore = addDays(first, -1)
    const dayAfter = addDays(last, 1)
    yield* app.makeArticle(siteId, { published_at: startOf(first) })
    yield* app.makeArticle(siteId, { published_at: endOf(last) })
    yield* app.makeArticle(siteId, { published_at: endOf(dayBefore) })
    yield* app.makeArticle(siteId, { published_at: startOf(dayAfter) })
    yield* app.makeArticle(siteId, { published_at: null, status: "draft" })
    // Dated inside the range but not published (yet): articles_published counts published articles only.
    yield* app.makeArticle(siteId, { published_at: startOf(first), status: "scheduled" })
    yield* app.makeArticle(siteId, { published_at: endOf(last), status: "draft" })
    yield* app.makeBacklink(siteId, { acquired_at: startOf(first), category: "industry" })
    yield* app.makeBacklink(siteId, { acquired_at: `${day(first)}T12:00:00Z`, category: "industry", status: "pending" })
    yield* app.makeBacklink(siteId, { acquired_at: endOf(last), category: "industry" })
    yield* app.makeBacklink(siteId, { acquired_at: startOf(first), category: "local" })
    yield* app.makeBacklink(siteId, { acquired_at: endOf(last), category: "local" })
    yield* app.makeBacklink(siteId, { acquired_at: endOf(dayBefore), category: "industry", status: "lost" })
    yield* app.makeBacklink(siteId, { acquired_at: startOf(dayAfter), category: "local" })
    yield* app.makeBacklink(siteId, { acquired_at: null, category: "local", status: "lost" })
  })

/** The four counts of a period or a month. */
const tally = (articles: number, industry: number, local: number) => ({
  articles_published: articles,
  backlinks_acquired: industry + local,
  backlinks_industry: industry,
  backlinks_local: local
})

/** The website's live and lost backlinks now (the stats' counts that no range bounds). */
const standing = (live: number, lost: number) => ({ backlinks_live: live, backlinks_lost: lost })

/** The counts `rangeFixture` puts inside its range, and the live and lost backlinks it puts anywhere. */
const expectedCounts = (siteId: SiteId, first: Date, last: Date) => ({
  site_id: siteId,
  from: day(first),
  to: day(last),
  ...tally(2, 3, 2),
  ...standing(5, 2)
})

/** A UTC day given as `YYYY-MM-DD`. */
const utcDay = (date: string) => new Date(`${date}T00:00:00Z`)
const days = (first: string, last: string) => () => ({ first: utcDay(first), last: utcDay(last) })
const today = new Date()

/** Queries that count one inclusive range of UTC days, which `rangeFixture` fills; `now` is the server's today. */
const rangeCases: ReadonlyArray<{
  readonly name: string
  readonly now?: Date
  readonly query: StatsQuery
  readonly range: (now: Date) => { readonly first: Date; readonly last: Date }
  readonly timeZone?: string
}> = [
  {
    name: "period=this_month counts the whole current UTC calendar month",
    now: today,
    query: { period: "this_month" },
    range: (now) => monthOf(now, 0)
  },
  {
    name: "without period, from or to, the period is this_month",
    now: today,
    query: {},
    range: (now) => monthOf(now, 0)
  },
  {
    name: "period=last_month counts the whole previous UTC calendar month",
    now: today,
    query: { period: "last_month" },
    range: (now) => monthOf(now, -1)
  },
  {
    name: "period=last_30_days counts today and the 29 days before it",
    now: today,
    query: { period: "last_30_days" },
    range: (now) => ({ first: addDays(now, -29), last: addDays(now, 0) })
  },
  {
    name: "last_month in January is December of the previous year",
    now: new Date("2027-01-15T12:00:00Z"),
    query: { period: "last_month" },
    range: days("2026-12-01", "2026-12-31")
  },
  {
    name: "last_30_days across a month boundary: on 2026-03-10 it is 2026-02-09 to 2026-03-10",
    now: new Date("2026-03-10T08:00:00Z"),
    query: { period: "last_30_days" },
    range: days("2026-02-09", "2026-03-10")
  },
  {
    name: "period=2026-10 counts that UTC month: 23:59:59 on its last day counted, 00:00:00 the next day not",
    query: { period: "2026-10" },
    range: days("2026-10-01", "2026-10-31")
  },
  {
    name: "period=2026-10-15 counts that single UTC day",
    query: { period: "2026-10-15" },
    range: days("2026-10-15", "2026-10-15")
  },
  {
    name: "from and to count their inclusive UTC days",
    query: { from: "2026-09-20", to: "2026-10-05" },
    range: days("2026-09-20", "2026-10-05")
  },
  {
    name: "from and to take precedence over period",
    query: { period: "2026-10", from: "2026-09-01", to: "2026-09-30" },
    range: days("2026-09-01", "2026-09-30")
  },
  {
    name: "counts use UTC days whatever the database session's TimeZone setting",
    query: { period: "2026-10" },
    range: days("2026-10-01", "2026-10-31"),
    timeZone: "Pacific/Kiritimati"
  }
]

/** One month of the `months` series. */
const monthStats = (month: string, articles: number, industry: number, local: number, lost = 0) => ({
  month,
  ...tally(articles, industry, local),
  ...standing(industry + local - lost, lost)
})

/**
 * Different counts in August, September and October 2026, on the months' edges, and some just outside them (July,
 * November). September has only a scheduled and a draft article, which are not published: nothing to count.
 * One August backlink is lost (all the others are live).
 * October's are spread over the month, so a range of part of it counts fewer than the month.
 */
const monthsFixture = (siteId: SiteId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    yield* app.makeArticle(siteId, { published_at: "2026-07-31T23:59:59Z" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-07-31T23:59:59Z", category: "industry" })
    yield* app.makeArticle(siteId, { published_at: "2026-08-01T00:00:00Z" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-08-01T00:00:00Z", category: "industry" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-08-15T12:00:00Z", category: "industry", status: "lost" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-08-31T23:59:59Z", category: "local" })
    yield* app.makeArticle(siteId, { published_at: "2026-09-10T10:00:00Z", status: "scheduled" })
    yield* app.makeArticle(siteId, { published_at: "2026-09-20T10:00:00Z", status: "draft" })
    yield* app.makeArticle(siteId, { published_at: "2026-10-01T00:00:00Z" })
    yield* app.makeArticle(siteId, { published_at: "2026-10-15T10:00:00Z" })
    yield* app.makeArticle(siteId, { published_at: "2026-10-31T23:59:59Z" })
    yield* app.makeArticle(siteId, { published_at: "2026-10-20T10:00:00Z", status: "scheduled" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-10-02T10:00:00Z", category: "local" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-10-31T23:59:59Z", category: "local" })
    yield* app.makeArticle(siteId, { published_at: "2026-11-01T00:00:00Z" })
    yield* app.makeBacklink(siteId, { acquired_at: "2026-11-01T00:00:00Z", category: "local" })
  })

/** A new website with `monthsFixture`'s counts, and its stats for `query`. */
const monthsFixtureStats = (query: StatsQuery) =>
  Effect.gen(function* () {
    const { key, siteId } = yield* siteOfNewAccount
    yield* monthsFixture(siteId)
    return { siteId, body: yield* getStats(key, siteId, query) }
  })

/** What `monthsFixture` puts in August, September and October 2026. */
const fixtureMonths = [
  monthStats("2026-08", 1, 2, 1, 1),
  monthStats("2026-09", 0, 0, 0),
  monthStats("2026-10", 3, 0, 2)
]

/**
 * Sets "now" for the server. Under `layer(...)` the server runs on the test's TestClock (which starts at the epoch),
 * so the periods relative to today are resolved against this instant.
 */
const setNow = (instant: Date) => TestClock.setTime(instant.getTime())

layer(TestServerLive)("GET /api/v1/sites/{id}/stats", (it) => {
  describe("periods", () => {
    for (const { name, now, query, range, timeZone } of rangeCases) {
      it.effect(name, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          if (now !== undefined) yield* setNow(now)
          const { first, last } = range(now ?? today)
          yield* rangeFixture(siteId, first, last)
          const ask = getStats(key, siteId, query)
          const body = yield* timeZone === undefined ? ask : withSessionTimeZone(timeZone, ask)
          assert.deepStrictEqual(body, { data: expectedCounts(siteId, first, last) })
        })
      )
    }

    it.effect("this_month follows the UTC day: at 23:59:59 on 31 October it is October, a second later November", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        yield* setNow(new Date("2026-10-31T23:59:59Z"))
        assertDays(yield* getStats(key, siteId, { period: "this_month" }), "2026-10-01", "2026-10-31")
        yield* setNow(new Date("2026-11-01T00:00:00Z"))
        assertDays(yield* getStats(key, siteId, { period: "this_month" }), "2026-11-01", "2026-11-30")
      })
    )

    it.effect("a month period resolves to the month's real last day (2026-02, 2028-02, 2025-12)", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const cases = [
          ["2026-02", "2026-02-01", "2026-02-28"],
          ["2028-02", "2028-02-01", "2028-02-29"],
          ["2025-12", "2025-12-01", "2025-12-31"]
        ] as const
        for (const [period, from, to] of cases) assertDays(yield* getStats(key, siteId, { period }), from, to)
      })
    )

    it.effect("a site with nothing in the period has all counts 0", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const body = yield* getStats(key, siteId, { period: "2020-01" })
        assert.deepStrictEqual(body, {
          data: { site_id: siteId, from: "2020-01-01", to: "2020-01-31", ...tally(0, 0, 0), ...standing(0, 0) }
        })
      })
    )

    it.effect("backlinks_acquired is backlinks_industry + backlinks_local, counting only this website", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const { accountId } = yield* app.makeAccount()
        const otherSite = yield* app.makeSite(accountId)
        for (const category of ["industry", "industry", "industry", "industry", "local", "local", "local"] as const) {
          yield* app.makeBacklink(siteId, { acquired_at: "2026-10-10T10:00:00Z", category })
        }
        yield* app.makeBacklink(otherSite, { acquired_at: "2026-10-10T10:00:00Z", category: "local" })
        yield* app.makeArticle(otherSite, { published_at: "2026-10-10T10:00:00Z" })
        const body = yield* getStats(key, siteId, { period: "2026-10" })
        assert.strictEqual(body.data.backlinks_industry, 4)
        assert.strictEqual(body.data.backlinks_local, 3)
        assert.strictEqual(body.data.backlinks_acquired, 7)
        assert.strictEqual(body.data.articles_published, 0)
      })
    )

    it.effect("articles_published counts only published articles: a scheduled or draft one in the range is not", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const inRange = "2026-10-10T10:00:00Z"
        yield* app.makeArticle(siteId, { published_at: inRange, status: "published" })
        yield* app.makeArticle(siteId, { published_at: inRange, status: "scheduled" })
        yield* app.makeArticle(siteId, { published_at: inRange, status: "draft" })
        yield* app.makeArticle(siteId, { published_at: inRange, status: null })
        const body = yield* getStats(key, siteId, { period: "2026-10" })
        assert.strictEqual(body.data.articles_published, 1)
      })
    )
  })

  describe("months", () => {
    it.effect(
      "months=3 with period=2026-10 adds August, September and October 2026, oldest first, each counted as a period",
      () =>
        Effect.gen(function* () {
          const { siteId, body } = yield* monthsFixtureStats({ period: "2026-10", months: 3 })
          assert.deepStrictEqual(body, {
            data: {
              site_id: siteId,
              from: "2026-10-01",
              to: "2026-10-31",
              ...tally(3, 0, 2),
              ...standing(6, 1),
              months: fixtureMonths
            }
          })
        })
    )

    it.effect(
      "the months are whole UTC months ending with the month of to, whatever day the range starts or ends",
      () =>
        Effect.gen(function* () {
          const { body } = yield* monthsFixtureStats({ from: "2026-09-20", to: "2026-10-05", months: 2 })
          assert.strictEqual(body.data.articles_published, 1)
          assert.strictEqual(body.data.backlinks_acquired, 1)
          assert.deepStrictEqual(body.data.months, fixtureMonths.slice(1))
        })
    )

    it.effect(`months=1 is the range's month alone; months=${MAX_STATS_MONTHS} reaches back across year ends`, () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const one = yield* getStats(key, siteId, { period: "2026-01-15", months: 1 })
        assert.deepStrictEqual(one.data.months, [monthStats("2026-01", 0, 0, 0)])
        const most = yield* getStats(key, siteId, { period: "2026-01", months: MAX_STATS_MONTHS })
        const names = (most.data.months ?? []).map((month) => month.month)
        assert.strictEqual(names.length, 24)
        assert.strictEqual(names[0], "2024-02")
        assert.deepStrictEqual(names.slice(-3), ["2025-11", "2025-12", "2026-01"])
      })
    )

    it.effect(
      "a series that would reach back before 0001-01 starts there: months=3 for 0001-02 is 0001-01 and 0001-02",
      () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          const body = yield* getStats(key, siteId, { period: "0001-02", months: 3 })
          assert.deepStrictEqual(body.data.months, [monthStats("0001-01", 0, 0, 0), monthStats("0001-02", 0, 0, 0)])
        })
    )

    it.effect(
      "the answer has months only when they are asked for: without months, exactly the nine counts fields",
      () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          yield* monthsFixture(siteId)
          const fields = [
            "site_id",
            "from",
            "to",
            "articles_published",
            "backlinks_acquired",
            "backlinks_industry",
            "backlinks_local",
            "backlinks_live",
            "backlinks_lost"
          ]
          const without = yield* get(`/api/v1/sites/${siteId}/stats?period=2026-10`, key)
          assert.strictEqual(without.status, 200)
          assert.deepStrictEqual(Object.keys(without.body.data), fields)
          const withMonths = yield* get(`/api/v1/sites/${siteId}/stats?period=2026-10&months=3`, key)
          assert.strictEqual(withMonths.status, 200)
          assert.deepStrictEqual(Object.keys(withMonths.body.data), [...fields, "months"])
          assert.deepStrictEqual(withMonths.body.data.months, fixtureMonths)
        })
    )

    for (const months of ["0", "25", "x", "1.5", "", "0x10", "1e1", "%2B5", "05"]) {
      it.effect(`months=${months} is 422 validation_error naming the allowed range`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          const result = yield* get(`/api/v1/sites/${siteId}/stats?period=2026-10&months=${months}`, key)
          assertValidationError(result)
          assert.strictEqual(result.body.message, "months: must be a whole number from 1 to 24")
        })
      )
    }

    it.effect("get_stats with months through MCP answers the same series as the REST endpoint", () =>
      Effect.gen(function* () {
        // The sign-in's tokens are dated by the server's clock: today, not the test clock's epoch.
        yield* setNow(new Date())
        const session = yield* newMcpSession
        yield* monthsFixture(session.siteId)
        const byRest = yield* get(`/api/v1/sites/${session.siteId}/stats?period=2026-10&months=3`, session.key)
        assert.strictEqual(byRest.status, 200)
        const byTool = yield* session.callTool("get_stats", { site_id: session.siteId, period: "2026-10", months: 3 })
        assert.isFalse(byTool.isError, JSON.stringify(byTool.text))
        assert.deepStrictEqual(byTool.text.data.months, fixtureMonths)
        assert.deepStrictEqual(byTool.text, byRest.body)
      })
    )
  })

  describe("invalid queries", () => {
    for (const [name, query] of [
      ["from alone", "from=2026-10-01"],
      ["to alone", "to=2026-10-31"],
      ["from alone with a period", "period=2026-10&from=2026-10-01"],
      ["an unknown period", "period=yesterday"],
      ["an impossible day period 2026-02-30", "period=2026-02-30"],
      ["a month period 2026-13", "period=2026-13"],
      ["a month period 2026-00", "period=2026-00"],
      ["an empty period", "period="],
      ["from after to", "from=2026-10-02&to=2026-10-01"],
      ["a malformed from", "from=2026-10-1&to=2026-10-31"],
      ["an impossible to 2026-02-30", "from=2026-02-01&to=2026-02-30"]
    ] as const) {
      it.effect(`GET /sites/{id}/stats with ${name} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, siteId } = yield* siteOfNewAccount
          assertValidationError(yield* get(`/api/v1/sites/${siteId}/stats?${query}`, key))
        })
      )
    }
  })

  describe("path ids", () => {
    for (const id of ["abc", "0", "-1", "1.5"]) {
      it.effect(`GET /sites/${id}/stats is 404 not_found, never 500`, () =>
        Effect.gen(function* () {
          const { key } = yield* siteOfNewAccount
          const { status, body } = yield* get(`/api/v1/sites/${id}/stats`, key)
          assert.strictEqual(status, 404)
          assert.strictEqual(body.error, "not_found")
        })
      )
    }

    it.effect("a website id that does not exist is 404 not_found", () =>
      Effect.gen(function* () {
        const { key } = yield* siteOfNewAccount
        assert.instanceOf(yield* failureOf(getStats(key, SiteId.make(999999999))), NotFound)
      })
    )
  })
})
