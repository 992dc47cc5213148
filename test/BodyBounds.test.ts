// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { INLINE_MAX_CHARACTERS } from "../src/Articles/Sanitizer.js"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { proseBody } from "./support/Bodies.js"
import { request } from "./support/Http.js"
import { articleOfNewAccount, TestServerLive } from "./support/TestServer.js"

const ORIGINAL = "<p>Original text.</p>"
const onPostgres = (process.env["DATABASE_URL"] ?? "") !== ""

/** A request to `/api/v1/articles/<path>` with an API key and a JSON body. */
const send = (method: "GET" | "PUT" | "PATCH", path: string, key: string, json?: unknown) =>
  request(method, `/api/v1/articles/${path}`, { key, json })

const storedBodies = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ body: string; revisions: number }>`
      select body, (select count(*)::int from article_revisions where article_id = ${id}) as revisions
      from articles where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  )

const assertRefused = (
  result: { readonly status: number; readonly body: Record<string, unknown> },
  limit: number,
  words: string
) => {
  assert.strictEqual(result.status, 422, JSON.stringify(result.body).slice(0, 300))
  assert.strictEqual(result.body["error"], "validation_error")
  assert.strictEqual(result.body["limit"], limit)
  assert.include(result.body["message"], "body")
  assert.include(result.body["message"], words)
}

layer(TestServerLive)("an article body's bounds", (it) => {
  describe("PUT /api/v1/articles/{id}", () => {
    it.effect(`a body over ${MAX_BODY_CHARACTERS} characters is 422 with limit and saves nothing`, () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        for (const body of [proseBody(MAX_BODY_CHARACTERS + 1), "<p>".repeat(1_600_000)]) {
          assertRefused(yield* send("PUT", `${id}`, key, { body }), MAX_BODY_CHARACTERS, "at most 262144 characters")
          assertRefused(
            yield* send("PUT", `${id}?dry_run=true`, key, { body }),
            MAX_BODY_CHARACTERS,
            "split it into several articles"
          )
        }
        assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
      })
    )

    it.effect(`a body with more than ${MAX_BODY_ELEMENTS} elements is 422 with limit and saves nothing`, () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const reopened = `${"<div>".repeat(120)}${Array.from({ length: 100 }, (_, i) => `<b id=${i}>`).join("")}${"</div>x".repeat(120)}`
        for (const body of ["<p>x".repeat(MAX_BODY_ELEMENTS + 1), "<a>".repeat(80_000), reopened]) {
          assertRefused(yield* send("PUT", `${id}`, key, { body }), MAX_BODY_ELEMENTS, "HTML elements")
        }
        assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
      })
    )

    it.effect("a body that would be longer than the bound once sanitised is 422 with limit and saves nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const result = yield* send("PUT", `${id}`, key, { body: `<p>${"&".repeat(100_000)}</p>` })
        assertRefused(result, MAX_BODY_CHARACTERS, "once sanitised")
        assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
      })
    )

    it.effect("a body at the character bound is saved whole, sanitised off the request thread", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const longest = proseBody(MAX_BODY_CHARACTERS)
        assert.isAbove(longest.length, INLINE_MAX_CHARACTERS)
        const saved = yield* send("PUT", `${id}`, key, { body: longest })
        assert.strictEqual(saved.status, 200, JSON.stringify(saved.body).slice(0, 300))
        assert.strictEqual(saved.body.data.body.length, MAX_BODY_CHARACTERS)
        assert.deepStrictEqual(yield* storedBodies(id), { body: longest, revisions: 1 })
        // A large body with a script is refused by the same sanitiser in the worker.
        const refused = yield* send("PUT", `${id}`, key, { body: `${longest.slice(0, 10_000)}<script>1</script>` })
        assert.strictEqual(refused.status, 422)
        assert.strictEqual(refused.body.error, "disallowed_html")
      })
    )
  })

  describe("PATCH /api/v1/articles/{id}", () => {
    it.effect("replacements that make the body longer than the bound are 422 with limit and save nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const result = yield* send("PATCH", `${id}`, key, {
          replacements: [{ find: "t", replace: "t".repeat(200_000), all: true }]
        })
        assertRefused(result, MAX_BODY_CHARACTERS, "replacements[0] would make the body")
        assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
      })
    )

    it.effect("replacements that add more elements than the bound are 422 with limit and save nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const result = yield* send("PATCH", `${id}`, key, {
          replacements: [{ find: "Original", replace: "<b>x</b>".repeat(MAX_BODY_ELEMENTS) }]
        })
        assertRefused(result, MAX_BODY_ELEMENTS, "HTML elements")
        assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
      })
    )
  })

  describe("the row lock", () => {
    // The embedded database has one connection: a transaction held open by the test would stall the server itself.
    it.effect.skipIf(!onPostgres)(
      "a body is sanitised before the article's row is locked: a refused body is answered while another transaction holds the lock (PostgreSQL only)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
          const locked = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            Effect.gen(function* () {
              yield* sql`select id from articles where id = ${id} for update`
              yield* Deferred.succeed(locked, undefined)
              yield* Deferred.await(release)
            }).pipe(sql.withTransaction, Effect.orDie)
          )
          yield* Deferred.await(locked)
          const tooMany = yield* send("PUT", `${id}`, key, { body: "<p>x".repeat(MAX_BODY_ELEMENTS + 1) })
          const dangerous = yield* send("PUT", `${id}`, key, { body: `<p>${"y".repeat(5_000)}</p><script>1</script>` })
          // Both answered while the lock is still held.
          assert.isNull(yield* Fiber.poll(holder).pipe(Effect.map((exit) => (exit._tag === "Some" ? "ended" : null))))
          assertRefused(tooMany, MAX_BODY_ELEMENTS, "HTML elements")
          assert.strictEqual(dangerous.body.error, "disallowed_html")
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
          assert.deepStrictEqual(yield* storedBodies(id), { body: ORIGINAL, revisions: 0 })
        }),
      60_000
    )
  })
})
