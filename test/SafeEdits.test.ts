// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { type Answer, request } from "./support/Http.js"
import { holdArticleRow } from "./support/RowLock.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const PARTNER = '<a data-service-protected="backlink" href="https://partner.example/">our partner</a>'
const BODY = `<p>Read about ${PARTNER} today.</p>`

/** A request to `/api/v1<path>` with an API key, a JSON body and more headers. */
const call = (method: string, path: string, key: string, json?: unknown, headers: Record<string, string> = {}) =>
  request(method, `/api/v1${path}`, { key, json, headers })

const article = Effect.gen(function* () {
  yield* TestClock.setTime(Date.now())
  const app = yield* TestApp
  const { accountId, key } = yield* app.makeAccount()
  const site = yield* app.makeSite(accountId)
  const id = yield* app.makeArticle(site, { title: "First", body: BODY, meta_description: "Meta" })
  return { accountId, key, id }
})

const stateOf = (id: number, accountId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ title: string; body: string; revision: number }>`
      select title, body, revision from articles where id = ${id}`.pipe(Effect.orDie)
    const [revisions] = yield* sql<{ n: number }>`
      select count(*)::int as n from article_revisions where article_id = ${id}`.pipe(Effect.orDie)
    const [quota] = yield* sql<{ n: number }>`
      select coalesce(sum(count), 0)::int as n from edit_counters where account_id = ${accountId}`.pipe(Effect.orDie)
    return { ...row!, revisions: revisions!.n, quota: quota!.n }
  })

const onPostgres = (process.env["DATABASE_URL"] ?? "") !== ""

/** Polls `condition` on real time (the requests run on the test clock) until it holds, for up to a minute. */
const waitFor = <R>(condition: Effect.Effect<boolean, never, R>) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 3000; attempt++) {
      if (yield* condition) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
    }
    return yield* Effect.dieMessage("the condition did not come true within a minute")
  })

/** Idempotency keys taken by running requests in this database (transaction-level advisory locks). */
const keysTaken = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ n: number }>`select count(*)::int as n from pg_locks
    where locktype = 'advisory' and granted
      and database = (select oid from pg_database where datname = current_database())`.pipe(Effect.orDie)
  return row!.n
})

/**
 * Holds article `id`'s row while `first` (a keyed write) is sent: the request takes its key and then waits for the
 * row. `meanwhile` gets an effect that waits until that is so; the row is let go when `meanwhile` ends, and the first
 * request's answer is returned (a failure if its client hung up).
 */
const whileRowHeld = <E, R>(
  id: number,
  first: { readonly key: string; readonly headers: Record<string, string>; readonly json: unknown },
  meanwhile: (waiting: Effect.Effect<void, never, SqlClient.SqlClient>) => Effect.Effect<void, E, R>,
  signal?: AbortSignal
) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const row = yield* holdArticleRow(id)
    const patching = yield* Effect.fork(
      Effect.tryPromise(async () => {
        const res = await fetch(`${app.baseUrl}/api/v1/articles/${id}`, {
          method: "PATCH",
          headers: { "x-api-key": first.key, "content-type": "application/json", ...first.headers },
          body: JSON.stringify(first.json),
          ...(signal === undefined ? {} : { signal })
        })
        const text = await res.text()
        return { status: res.status, headers: res.headers, text, body: JSON.parse(text) } satisfies Answer
      })
    )
    yield* meanwhile(waitFor(Effect.map(keysTaken, (n) => n > 0)))
    yield* row.release
    return yield* Fiber.join(patching)
  })

layer(TestServerLive)("beyond the interface: safe concurrent edits, retries and previews", (it) => {
  describe("revisions as versions", () => {
    it.effect('GET sends ETag "<revision>" and article answers carry revision', () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const first = yield* call("GET", `/articles/${id}`, key)
        assert.strictEqual(first.headers.get("etag"), '"0"')
        assert.strictEqual(first.body.data.revision, 0)
        const edited = yield* call("PATCH", `/articles/${id}`, key, { title: "Second" }, { "if-match": '"0"' })
        assert.strictEqual(edited.status, 200)
        assert.strictEqual(edited.body.data.revision, 1)
        const second = yield* call("GET", `/articles/${id}`, key)
        assert.strictEqual(second.headers.get("etag"), '"1"')
      })
    )

    it.effect("an If-Match that does not name the current revision is 412 naming it, and nothing is saved", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        yield* call("PATCH", `/articles/${id}`, key, { title: "Second" })
        const before = yield* stateOf(id, accountId)
        for (const [method, payload] of [
          ["PATCH", { title: "Stale" }],
          ["PUT", { body: BODY, title: "Stale" }]
        ] as const) {
          const stale = yield* call(method, `/articles/${id}`, key, payload, { "if-match": '"0"' })
          assert.strictEqual(stale.status, 412)
          assert.strictEqual(stale.body.error, "precondition_failed")
          assert.include(stale.body.message, "revision 1")
        }
        const image = yield* call(
          "POST",
          `/articles/${id}/featured-image`,
          key,
          { url: "https://img.example/a.png" },
          { "if-match": '"7"' }
        )
        assert.strictEqual(image.status, 412)
        assert.deepStrictEqual(yield* stateOf(id, accountId), before)
        const any = yield* call("PATCH", `/articles/${id}`, key, { title: "Any" }, { "if-match": "*" })
        assert.strictEqual(any.status, 200)
      })
    )

    it.effect("two writers with the same If-Match at once: exactly one 200, one 412, and one revision", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        const answers = yield* Effect.all(
          [
            call("PATCH", `/articles/${id}`, key, { title: "Writer A" }, { "if-match": '"0"' }),
            call("PATCH", `/articles/${id}`, key, { title: "Writer B" }, { "if-match": '"0"' })
          ],
          { concurrency: "unbounded" }
        )
        assert.sameMembers(
          answers.map((a) => a.status),
          [200, 412]
        )
        const state = yield* stateOf(id, accountId)
        assert.strictEqual(state.revisions, 1)
        assert.strictEqual(state.revision, 1)
      })
    )
  })

  describe("Idempotency-Key", () => {
    it.effect(
      "a retry with the same key replays the first answer byte for byte, with one change and one revision",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* article
          const retryKey = { "idempotency-key": "edit-7f3a" }
          // The first answer is lost on the way back: the client only knows it sent the request.
          const first = yield* call("PATCH", `/articles/${id}`, key, { title: "Once" }, retryKey)
          assert.strictEqual(first.status, 200)
          assert.isNull(first.headers.get("idempotent-replayed"))
          const retry = yield* call("PATCH", `/articles/${id}`, key, { title: "Once" }, retryKey)
          assert.strictEqual(retry.status, 200)
          assert.strictEqual(retry.text, first.text)
          assert.strictEqual(retry.headers.get("idempotent-replayed"), "true")
          const state = yield* stateOf(id, accountId)
          assert.strictEqual(state.revisions, 1)
          assert.strictEqual(state.quota, 1)
        })
    )

    it.effect("a refused first request is replayed as refused; a different request under the key is 422", () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const headers = { "idempotency-key": "conflict-1" }
        const first = yield* call("PATCH", `/articles/${id}`, key, { replacements: [{ find: "absent" }] }, headers)
        assert.strictEqual(first.status, 409)
        const retry = yield* call("PATCH", `/articles/${id}`, key, { replacements: [{ find: "absent" }] }, headers)
        assert.strictEqual(retry.status, 409)
        assert.strictEqual(retry.text, first.text)
        const other = yield* call("PATCH", `/articles/${id}`, key, { title: "Something else" }, headers)
        assert.strictEqual(other.status, 422)
        assert.strictEqual(other.body.error, "idempotency_key_reused")
      })
    )

    it.effect.skipIf(!onPostgres)(
      "the same key while the first request is still running is 409 idempotency_key_in_use; then it replays",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* article
          const headers = { "idempotency-key": "running-1" }
          // The first request waits for the article's row, which the test holds, with its key taken.
          const first = yield* whileRowHeld(id, { key, headers, json: { title: "Again" } }, (waiting) =>
            Effect.gen(function* () {
              yield* waiting
              const second = yield* call("PATCH", `/articles/${id}`, key, { title: "Again" }, headers)
              assert.strictEqual(second.status, 409)
              assert.strictEqual(second.body.error, "idempotency_key_in_use")
              assert.isNotNull(second.headers.get("x-request-id"))
            })
          )
          assert.strictEqual(first.status, 200)
          const replay = yield* call("PATCH", `/articles/${id}`, key, { title: "Again" }, headers)
          assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
          assert.strictEqual(replay.text, first.text)
          assert.strictEqual((yield* stateOf(id, accountId)).revisions, 1)
        })
    )

    it.effect.skipIf(!onPostgres)(
      "a request whose client hangs up while it runs leaves its key free: the retry runs, and the change is made once",
      () =>
        Effect.gen(function* () {
          const { key, id, accountId } = yield* article
          const headers = { "idempotency-key": "abort-1" }
          const edit = { replacements: [{ find: "today", replace: "today and tomorrow" }] }
          const abort = new AbortController()
          const aborted = yield* whileRowHeld(
            id,
            { key, headers, json: edit },
            (waiting) =>
              Effect.gen(function* () {
                yield* waiting
                abort.abort()
                // The server notices the hang-up and rolls the request back (while the row is still held), which
                // frees the key.
                yield* waitFor(keysTaken.pipe(Effect.map((n) => n === 0)))
              }),
            abort.signal
          ).pipe(Effect.exit)
          assert.isTrue(aborted._tag === "Failure")
          const retry = yield* call("PATCH", `/articles/${id}`, key, edit, headers)
          assert.strictEqual(retry.status, 200)
          assert.isNull(retry.headers.get("idempotent-replayed"))
          const again = yield* call("PATCH", `/articles/${id}`, key, edit, headers)
          assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
          const state = yield* stateOf(id, accountId)
          assert.strictEqual(state.revisions, 1)
          assert.strictEqual(state.quota, 1)
          assert.strictEqual(state.body.split("today and tomorrow").length, 2)
        })
    )

    it.effect("a 429 for the day's quota is not kept: once the quota is free, the retry with the key runs", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        const sql = yield* SqlClient.SqlClient
        const headers = { "idempotency-key": "quota-1" }
        yield* sql`insert into edit_counters (account_id, day, count)
          values (${accountId}, ${new Date().toISOString().slice(0, 10)}::date, 200)`.pipe(Effect.orDie)
        const refused = yield* call("PATCH", `/articles/${id}`, key, { title: "Later" }, headers)
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(refused.body.error, "edit_limit_exceeded")
        yield* sql`delete from edit_counters where account_id = ${accountId}`.pipe(Effect.orDie)
        const retry = yield* call("PATCH", `/articles/${id}`, key, { title: "Later" }, headers)
        assert.strictEqual(retry.status, 200)
        assert.isNull(retry.headers.get("idempotent-replayed"))
        assert.strictEqual(retry.body.data.title, "Later")
        assert.strictEqual((yield* stateOf(id, accountId)).revisions, 1)
      })
    )

    it.effect("a key is per credential, and a malformed key is 422", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id, accountId } = yield* article
        const other = yield* app.makeKey(accountId)
        const headers = { "idempotency-key": "shared-name" }
        assert.strictEqual((yield* call("PATCH", `/articles/${id}`, key, { title: "By one" }, headers)).status, 200)
        const second = yield* call("PATCH", `/articles/${id}`, other, { title: "By two" }, headers)
        assert.strictEqual(second.status, 200)
        assert.isNull(second.headers.get("idempotent-replayed"))
        const bad = yield* call("PATCH", `/articles/${id}`, key, { title: "x" }, { "idempotency-key": "a b" })
        assert.strictEqual(bad.status, 422)
        assert.include(bad.body.message, "idempotency-key")
      })
    )
  })

  describe("dry runs", () => {
    it.effect("a dry run of a protected-link violation answers the real edit's 422 and changes nothing", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        const before = yield* stateOf(id, accountId)
        const edit = { replacements: [{ find: PARTNER, replace: "our partner" }] }
        const dry = yield* call("PATCH", `/articles/${id}?dry_run=true`, key, edit)
        assert.strictEqual(dry.status, 422)
        assert.strictEqual(dry.body.error, "protected_link_violation")
        assert.deepStrictEqual(yield* stateOf(id, accountId), before)
        const real = yield* call("PATCH", `/articles/${id}`, key, edit)
        assert.strictEqual(real.text, dry.text)
      })
    )

    it.effect("a dry run of a valid edit returns the would-be article and a diff, and saves nothing", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        const before = yield* stateOf(id, accountId)
        const dry = yield* call("PATCH", `/articles/${id}?dry_run=true`, key, {
          title: "Previewed",
          replacements: [{ find: "today", replace: "this week" }]
        })
        assert.strictEqual(dry.status, 200)
        assert.strictEqual(dry.body.data.title, "Previewed")
        assert.include(dry.body.data.body, "this week")
        assert.strictEqual(dry.body.data.revision, 1)
        assert.deepStrictEqual(
          { ...dry.body.preview, diff: undefined },
          {
            changed: true,
            diff: undefined,
            title_changed: true,
            meta_description_changed: false,
            current: { title: "First", meta_description: "Meta" }
          }
        )
        assert.include(dry.body.preview.diff, "-<p>Read about")
        assert.include(dry.body.preview.diff, "+<p>Read about")
        assert.include(dry.body.preview.diff, "this week")
        assert.deepStrictEqual(yield* stateOf(id, accountId), before)
        const put = yield* call("PUT", `/articles/${id}?dry_run=true`, key, { body: BODY })
        assert.strictEqual(put.status, 200)
        assert.deepStrictEqual(put.body.preview, {
          changed: false,
          diff: "",
          title_changed: false,
          meta_description_changed: false,
          current: { title: "First", meta_description: "Meta" }
        })
        const plain = yield* call("PATCH", `/articles/${id}`, key, { title: "Saved" })
        assert.notProperty(plain.body, "preview")
      })
    )

    it.effect("a dry run answers edit_limit_exceeded when the day's quota is used, as the real edit would", () =>
      Effect.gen(function* () {
        const { key, id, accountId } = yield* article
        const sql = yield* SqlClient.SqlClient
        yield* sql`insert into edit_counters (account_id, day, count)
          values (${accountId}, ${new Date().toISOString().slice(0, 10)}::date, 200)`.pipe(Effect.orDie)
        const dry = yield* call("PATCH", `/articles/${id}?dry_run=true`, key, { title: "Over" })
        assert.strictEqual(dry.status, 429)
        assert.strictEqual(dry.body.error, "edit_limit_exceeded")
      })
    )
  })
})
