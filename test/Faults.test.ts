// @tags: engine runtime

import { HttpApp, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Logger, LogLevel, Random, Schedule } from "effect"
import { serverMiddleware } from "../src/Server/Pipeline.js"
import { DatabaseFaults, FaultyServerLive, onPostgres } from "./support/DatabaseFaults.js"
import { eventually, waitUntil } from "./support/Eventually.js"
import { request } from "./support/Http.js"
import { TestApp } from "./support/TestServer.js"

/** Keyed edits sent while the database connections break, how many run at once, and how many breaks at most. */
const EDITS = 24
const CONCURRENCY = 4
const BREAKS = 12

interface Answer {
  readonly status: number
  readonly requestId: string | null
  readonly contentType: string | null
  readonly replayed: boolean
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in the assertions.
  readonly body: any
}

const marker = (edit: number) => `[e${edit}]`
const keyOf = (edit: number, prefix = "fault-edit") => `${prefix}-${edit}`
/** The edit whose database dies right after it commits. */
const COMMIT_EDIT = 1000
/** Each edit appends its marker to the one paragraph: applied twice, the marker would be there twice. */
const editOf = (edit: number) => ({ replacements: [{ find: "</p>", replace: ` ${marker(edit)}</p>` }] })

/** One keyed PATCH; a connection that ends without an answer is a failure of the test. */
const send = (key: string, id: number, edit: number, keyPrefix?: string) =>
  Effect.map(
    request("PATCH", `/api/v1/articles/${id}`, {
      key,
      json: editOf(edit),
      headers: { "idempotency-key": keyOf(edit, keyPrefix) }
    }),
    (res) =>
      ({
        status: res.status,
        requestId: res.headers.get("x-request-id"),
        contentType: res.headers.get("content-type"),
        replayed: res.headers.get("idempotent-replayed") === "true",
        body: res.body
      }) satisfies Answer
  )

/** Every answer is a success or an `Error` body, JSON, with its request id; a 5xx says to retry with the key. */
const assertRealAnswer = (answer: Answer) => {
  assert.isNotNull(answer.requestId, JSON.stringify(answer))
  assert.match(answer.contentType ?? "", /^application\/json/)
  if (answer.status === 200) {
    assert.isObject(answer.body.data)
    return
  }
  assert.isString(answer.body.error, JSON.stringify(answer))
  assert.isString(answer.body.message)
  // No request under these keys ever runs twice at once, and each key has one request: nothing else is possible.
  assert.isAtLeast(answer.status, 500, JSON.stringify(answer.body))
  assert.include(answer.body.message, "Idempotency-Key")
  assert.include(answer.body.message, answer.requestId!)
}

/** A statement of the test's own, retried while the service's pool replaces the connections that were broken. */
const settled = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.retry({ times: 50, schedule: Schedule.spaced(Duration.millis(20)) }), Effect.orDie)

/** The stored body of an article, read once the pool has connections again. */
const storedBody = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    settled(sql<{ body: string }>`select body from articles where id = ${id}`).pipe(Effect.map((rows) => rows[0]!.body))
  )

/** A keyed edit sent again until it is answered below 500 (every 5xx on the way a real answer); the answer. */
const retryUntilAnswered = (key: string, id: number, edit: number, keyPrefix?: string) =>
  Effect.gen(function* () {
    let retry = yield* send(key, id, edit, keyPrefix)
    for (let attempt = 0; attempt < 20 && retry.status >= 500; attempt++) {
      assertRealAnswer(retry)
      retry = yield* send(key, id, edit, keyPrefix)
    }
    return retry
  })

/** The faults, and a new account's API key and article to edit under them. */
const articleUnderFaults = Effect.gen(function* () {
  const app = yield* TestApp
  const faults = yield* DatabaseFaults
  const { accountId, key } = yield* app.makeAccount()
  const id = yield* app.makeArticle(yield* app.makeSite(accountId), { body: "<p>Start.</p>" })
  return { faults, accountId, key, id }
})

layer(FaultyServerLive, { excludeTestServices: true })("faults", (it) => {
  it.effect(
    `keyed edits while ${onPostgres ? "backends are terminated" : "the database connection is closed"}: each applied once, each answerable by its key, no key stuck, every answer real`,
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { faults, accountId, key, id } = yield* articleUnderFaults

        // The faults: up to BREAKS times, at random moments a few milliseconds apart, while the edits run.
        let sending = true
        const breaker = yield* Effect.gen(function* () {
          let broken = 0
          for (let i = 0; i < BREAKS && sending; i++) {
            yield* Effect.sleep(Duration.millis(yield* Random.nextIntBetween(2, 40)))
            broken += yield* faults.breakConnections
          }
          return broken
        }).pipe(Effect.fork)
        const first = yield* Effect.forEach(
          Array.from({ length: EDITS }, (_, edit) => edit),
          (edit) => send(key, id, edit),
          { concurrency: CONCURRENCY }
        )
        sending = false
        const broken = yield* Fiber.join(breaker)
        assert.isAbove(broken, 0, "no connection was broken")
        for (const answer of first) assertRealAnswer(answer)

        // What the faults let through: the edits whose change committed.
        const before = yield* storedBody(id)
        const committed = (edit: number) => before.includes(marker(edit))
        for (let edit = 0; edit < EDITS; edit++) {
          if (first[edit]!.status === 200) assert.isTrue(committed(edit), `edit ${edit} was answered 200`)
        }

        // Each edit retried with its key until it is answered: a committed one replays, any other runs now.
        for (let edit = 0; edit < EDITS; edit++) {
          const retry = yield* retryUntilAnswered(key, id, edit)
          assert.strictEqual(retry.status, 200, `edit ${edit}: ${JSON.stringify(retry.body)}`)
          assert.strictEqual(retry.replayed, committed(edit), `edit ${edit} replayed`)
        }

        const after = yield* storedBody(id)
        for (let edit = 0; edit < EDITS; edit++) {
          assert.strictEqual(after.split(marker(edit)).length, 2, `edit ${edit} applied once: ${after}`)
        }
        const [counts] = yield* settled(sql<{ revisions: number; keys: number; quota: number }>`select
            (select count(*)::int from article_revisions where article_id = ${id}) as revisions,
            (select count(*)::int from idempotency_keys where key like 'fault-edit-%') as keys,
            (select coalesce(sum(count), 0)::int from edit_counters where account_id = ${accountId}) as quota`)
        assert.deepStrictEqual(counts, { revisions: EDITS, keys: EDITS, quota: EDITS })
      }),
    { timeout: 120_000 }
  )

  it.effect(
    "a change whose database dies right after its commit is answered with its own 200 (JSON), and its retry replays it",
    () =>
      Effect.gen(function* () {
        const { faults, key, id } = yield* articleUnderFaults
        const lostBefore = yield* faults.lost
        // Committed, with its call-log row and its kept answer: what happens to the database afterwards (the next
        // statement, reading the day's changes for the limit headers, finds its connection dead) changes nothing.
        yield* faults.dieAfterNextCommit
        const answer = yield* send(key, id, COMMIT_EDIT, "commit-edit")
        assert.isAbove(yield* faults.lost, lostBefore, "no statement found its connection dead after the commit")
        assert.strictEqual(answer.status, 200, JSON.stringify(answer))
        assert.match(answer.contentType ?? "", /^application\/json/)
        assert.include(answer.body.data.body, marker(COMMIT_EDIT))
        assert.isNotNull(answer.requestId)

        // The service's other connections died too: a retry may find one before the pool has replaced them all.
        const retry = yield* retryUntilAnswered(key, id, COMMIT_EDIT, "commit-edit")
        assert.strictEqual(retry.status, 200, JSON.stringify(retry))
        assert.isTrue(retry.replayed)
        const body = yield* storedBody(id)
        assert.strictEqual(body.split(marker(COMMIT_EDIT)).length, 2, body)
        const sql = yield* SqlClient.SqlClient
        const [logged] = yield* settled(
          sql<{ status: number }>`select status from audit_log where request_id = ${answer.requestId!} and status = 200`
        )
        assert.strictEqual(logged?.status, 200)
      })
  )

  it.effect("reads answered while the call log cannot be written get their rows once it can: none is dropped", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const sql = yield* SqlClient.SqlClient
      const { accountId, key } = yield* app.makeAccount()
      const site = yield* app.makeSite(accountId)
      // Every insert into the call log fails, and counts its attempt in a sequence (which a rollback does not undo).
      yield* settled(sql`create sequence audit_fault_attempts`)
      yield* settled(sql`create function audit_fault() returns trigger language plpgsql as $$
        begin perform nextval('audit_fault_attempts'); raise exception 'the call log is unavailable'; end $$`)
      yield* settled(
        sql`create trigger audit_fault before insert on audit_log for each row execute function audit_fault()`
      )
      const answers = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        () =>
          Effect.map(app.fetch(`/api/v1/sites/${site}/articles`, { headers: { "x-api-key": key } }), (res) => ({
            status: res.status,
            requestId: res.headers.get("x-request-id")!
          })),
        { concurrency: CONCURRENCY }
      )
      for (const answer of answers) assert.strictEqual(answer.status, 200)
      yield* waitUntil(
        "a write of the call log failed",
        Effect.map(
          settled(sql<{ called: boolean }>`select is_called as called from audit_fault_attempts`),
          ([row]) => row!.called
        )
      )
      yield* settled(sql`drop trigger audit_fault on audit_log`)
      yield* settled(sql`drop function audit_fault()`)
      yield* settled(sql`drop sequence audit_fault_attempts`)

      const ids = answers.map((answer) => answer.requestId)
      const rows = yield* eventually(
        settled(sql<{ n: number }>`select count(*)::int as n from audit_log where request_id in ${sql.in(ids)}`),
        ([row]) => row!.n >= ids.length
      )
      assert.strictEqual(rows[0]!.n, ids.length)
    })
  )
})

describe("a stage after the handler that fails", () => {
  it.effect(
    "is answered with the JSON internal_error, not the platform's empty 500, whatever runs again after it",
    () =>
      Effect.gen(function* () {
        // A stage after the handler that fails once (a read of a database that has just died), then works.
        let failed = false
        const app = Effect.gen(function* () {
          yield* HttpApp.appendPreResponseHandler((_request, response) => {
            if (failed) return Effect.succeed(response)
            failed = true
            return Effect.die(new Error("the database is gone"))
          })
          return HttpServerResponse.text("answered")
        })
        const handler = HttpApp.toWebHandler(
          app.pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.None))),
          serverMiddleware({ https: false })
        )
        const response = yield* Effect.promise(() => handler(new Request("http://in-process/api/v1/meta")))
        assert.isTrue(failed)
        assert.strictEqual(response.status, 500)
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
        const body = yield* Effect.promise(() => response.json())
        assert.strictEqual(body.error, "internal_error")
        assert.include(body.message, response.headers.get("x-request-id")!)
      })
  )
})
