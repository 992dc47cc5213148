// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { ApiKeyId } from "../src/Domain/Ids.js"
import { FAILURE_COUNTER_PREFIX } from "../src/Limits/AuthFailures.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const LIMIT = 60
const RATE_LIMIT_HEADERS = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"]

/** GET with the given headers; the status, the headers and the parsed JSON body. */
const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch(path, { headers })
    const body = yield* Effect.promise(() => res.json())
    return { status: res.status, headers: res.headers, body }
  })

type Result = Effect.Effect.Success<ReturnType<typeof get>>

/** An authenticated GET with `key` in `X-API-Key`. */
const getWithKey = (path: string, key: string) => get(path, { "x-api-key": key })

/** An integer header; fails the test when it is missing or not an integer. */
const intHeader = (result: Result, name: string): number => {
  const value = result.headers.get(name)
  assert.isNotNull(value, `no ${name} header on a ${result.status}`)
  assert.match(value!, /^\d+$/, `${name}: ${value}`)
  return Number(value)
}

const assertNoRateLimitHeaders = (result: Result) => {
  for (const name of RATE_LIMIT_HEADERS) {
    assert.isNull(result.headers.get(name), `${name} on ${result.status}`)
  }
}

/** `RateLimit-Remaining` of the next request of `key`, which is one cheap authenticated call. */
const remainingNow = (key: string) =>
  Effect.map(getWithKey("/api/v1/sites", key), (result) => {
    assert.strictEqual(result.status, 200, JSON.stringify(result.body))
    return intHeader(result, "ratelimit-remaining")
  })

/** Makes `count` authenticated calls with `key`, all expected to succeed; their results. */
const callsWithin = (key: string, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => getWithKey("/api/v1/sites", key))

/** Three authenticated requests that are refused (404, 422 and 403, in that order), one after the other. */
const rejectedRequests = (key: string) =>
  Effect.forEach(
    ["/api/v1/articles/999999", "/api/v1/sites?per_page=0", "/api/v1/sites?account=someone@example.com"],
    (path) => getWithKey(path, key)
  ).pipe(
    Effect.tap((rejected) =>
      assert.deepStrictEqual(
        rejected.map((result) => result.status),
        [404, 422, 403]
      )
    )
  )

/** Half past a minute, so that the window is neither just starting nor just ending. */
const setMidMinute = TestClock.setTime(Date.parse("2026-11-21T10:00:30Z"))

const newKey = Effect.flatMap(TestApp, (app) => Effect.map(app.makeAccount(), (account) => account.key))

/** A new account's key, with the clock at half past a minute. */
const keyAtMidMinute = Effect.zipRight(setMidMinute, newKey)

/** The total of the request counters whose keys start with `prefix` (any, or none of them, with `except`). */
const countedUnder = (prefix: string, except = false) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ total: number | null }>`
      select sum(count)::int as total from request_counters
      where (starts_with(credential, ${prefix})) <> ${except}`.pipe(Effect.orDie)
    return rows[0]?.total ?? 0
  })

/**
 * The total of every credential's request counter in the database (the failed authentications of client addresses,
 * kept in the same table, are no credential's requests).
 */
const countedRequests = countedUnder(FAILURE_COUNTER_PREFIX, true)

layer(TestServerLive)("request limits", (it) => {
  describe("60 requests per minute per API key", () => {
    it.effect(
      "60 requests within a minute succeed, each with RateLimit-Limit 60, a decreasing RateLimit-Remaining, RateLimit-Reset in 1..60 s and a policy naming requests and edits",
      () =>
        Effect.gen(function* () {
          const key = yield* keyAtMidMinute
          const results = yield* callsWithin(key, LIMIT)
          results.forEach((result, index) => {
            assert.strictEqual(result.status, 200, `request ${index + 1}: ${JSON.stringify(result.body)}`)
            assert.strictEqual(intHeader(result, "ratelimit-limit"), LIMIT)
            assert.strictEqual(intHeader(result, "ratelimit-remaining"), LIMIT - 1 - index)
            const reset = intHeader(result, "ratelimit-reset")
            assert.isAtLeast(reset, 1)
            assert.isAtMost(reset, 60)
            const policy = result.headers.get("ratelimit-policy") ?? ""
            assert.match(policy, /"requests";[^,]*q=60\b/, policy)
            assert.match(policy, /"edits";[^,]*q=200\b/, policy)
          })
        })
    )

    it.effect("the 61st request within a minute is 429 rate_limited with limit 60", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        yield* callsWithin(key, LIMIT)
        const over = yield* getWithKey("/api/v1/sites", key)
        assert.strictEqual(over.status, 429, JSON.stringify(over.body))
        assert.strictEqual(over.body.error, "rate_limited")
        assert.strictEqual(over.body.limit, LIMIT)
        assert.isString(over.body.message)
      })
    )

    it.effect(
      "the request-limit 429 carries Retry-After (1..60 s) and RateLimit-Remaining 0, and waiting Retry-After seconds is enough",
      () =>
        Effect.gen(function* () {
          const key = yield* keyAtMidMinute
          yield* callsWithin(key, LIMIT)
          const over = yield* getWithKey("/api/v1/sites", key)
          assert.strictEqual(over.status, 429)
          const retryAfter = intHeader(over, "retry-after")
          assert.isAtLeast(retryAfter, 1)
          assert.isAtMost(retryAfter, 60)
          assert.strictEqual(intHeader(over, "ratelimit-limit"), LIMIT)
          assert.strictEqual(intHeader(over, "ratelimit-remaining"), 0)
          yield* TestClock.adjust(`${retryAfter} seconds`)
          const again = yield* getWithKey("/api/v1/sites", key)
          assert.strictEqual(again.status, 200, JSON.stringify(again.body))
        })
    )

    it.effect("a minute after running out, the key can make requests again with a fresh allowance", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        yield* callsWithin(key, LIMIT + 1)
        assert.strictEqual((yield* getWithKey("/api/v1/sites", key)).status, 429)
        yield* TestClock.adjust("1 minute")
        assert.strictEqual(yield* remainingNow(key), LIMIT - 1)
      })
    )

    it.effect("two keys of the same account have separate counters", () =>
      Effect.gen(function* () {
        yield* setMidMinute
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const second = yield* app.makeKey(accountId)
        yield* callsWithin(key, LIMIT)
        assert.strictEqual((yield* getWithKey("/api/v1/sites", key)).status, 429)
        assert.strictEqual(yield* remainingNow(second), LIMIT - 1)
      })
    )

    it.effect("requests that are rejected (404, 422, 403) count like any other authenticated request", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        yield* rejectedRequests(key)
        assert.strictEqual(yield* remainingNow(key), LIMIT - 4)
      })
    )

    it.effect("rejected authenticated responses (404, 422, 403) carry the RateLimit headers too", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        const rejected = yield* rejectedRequests(key)
        rejected.forEach((result, index) => {
          assert.strictEqual(intHeader(result, "ratelimit-limit"), LIMIT)
          assert.strictEqual(intHeader(result, "ratelimit-remaining"), LIMIT - 1 - index)
          assert.isAtLeast(intHeader(result, "ratelimit-reset"), 1)
          assert.isNotNull(result.headers.get("ratelimit-policy"))
        })
      })
    )
  })

  describe("what does not count", () => {
    it.effect("failed authentication (401) does not count and carries no RateLimit headers", () =>
      Effect.gen(function* () {
        yield* setMidMinute
        const before = yield* countedRequests
        const unknown = yield* getWithKey("/api/v1/sites", "cbs_not-a-real-key")
        const malformed = yield* get("/api/v1/sites", { authorization: "Basic abc" })
        const missing = yield* get("/api/v1/sites")
        for (const result of [unknown, malformed, missing]) {
          assert.strictEqual(result.status, 401)
          assertNoRateLimitHeaders(result)
        }
        assert.strictEqual(yield* countedRequests, before)
      })
    )

    it.effect("a revoked key's 401s do not count against it or anything else", () =>
      Effect.gen(function* () {
        yield* setMidMinute
        const keys = yield* ApiKeys
        const key = yield* newKey
        const credential = Option.getOrThrow(yield* keys.authenticate(key))
        if (credential.kind !== "api_key") return assert.fail("expected an API key credential")
        yield* keys.revoke(ApiKeyId.make(credential.id)).pipe(Effect.orDie)
        const before = yield* countedRequests
        const failuresBefore = yield* countedUnder(FAILURE_COUNTER_PREFIX)
        const results = yield* Effect.forEach(Array.from({ length: 5 }), () => getWithKey("/api/v1/sites", key))
        for (const result of results) {
          assert.strictEqual(result.status, 401)
          assertNoRateLimitHeaders(result)
        }
        assert.strictEqual(yield* countedRequests, before)
        // They count only as failed authentications of the client address (see test/AuthFailures.test.ts).
        assert.strictEqual(yield* countedUnder(FAILURE_COUNTER_PREFIX), failuresBefore + 5)
      })
    )

    it.effect("/healthz and /readyz answer 200 without credentials, carry no RateLimit headers and never count", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        const anonymous = [yield* get("/healthz"), yield* get("/readyz")]
        const withKey = [yield* getWithKey("/healthz", key), yield* getWithKey("/readyz", key)]
        for (const result of [...anonymous, ...withKey]) {
          assert.strictEqual(result.status, 200, JSON.stringify(result.body))
          assertNoRateLimitHeaders(result)
        }
        assert.deepStrictEqual(anonymous[0]!.body, { status: "ok" })
        assert.deepStrictEqual(anonymous[1]!.body, { status: "ready" })
        // Many polls with the key leave the key's allowance untouched.
        yield* Effect.forEach(Array.from({ length: LIMIT }), () => getWithKey("/healthz", key))
        assert.strictEqual(yield* remainingNow(key), LIMIT - 1)
      })
    )

    it.effect("GET /api/v1/openapi.json does not count, even with a key", () =>
      Effect.gen(function* () {
        const key = yield* keyAtMidMinute
        const before = yield* countedRequests
        const results = yield* Effect.forEach(Array.from({ length: LIMIT + 1 }), () =>
          getWithKey("/api/v1/openapi.json", key)
        )
        for (const result of results) assert.strictEqual(result.status, 200)
        assert.strictEqual(yield* countedRequests, before)
        assert.strictEqual(yield* remainingNow(key), LIMIT - 1)
      })
    )
  })
})
