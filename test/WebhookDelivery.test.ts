// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import type { AccountId, ArticleId } from "../src/Domain/Ids.js"
import { Events } from "../src/Events/Events.js"
import { OutboundPolicy } from "../src/Http/OutboundFetch.js"
import { RunsWorkers } from "../src/Jobs/Jobs.js"
import { BackgroundWorkLive } from "../src/Server/BackgroundWork.js"
import { layerEmbedded, layerPostgres } from "../src/Sql/Database.js"
import { Deliver } from "../src/Webhooks/Deliver.js"
import { eventually, waitUntil } from "./support/Eventually.js"
import { patchArticle, request } from "./support/Http.js"
import { embeddedTemplateCopy, freshPostgresUrl, TestDatabaseLive } from "./support/TestDatabase.js"
import { articleOfNewAccount, testServerOn } from "./support/TestServer.js"
import {
  type Answering,
  answerWith,
  attemptsOf,
  deliveriesOf,
  endpoint,
  endpointState,
  firstThen,
  insertEndpoint,
  neverAnswer,
  newSecret,
  receiver,
  retryJobsOf
} from "./support/WebhookReceivers.js"

/** The outbound guard as `OUTBOUND_ALLOW_LOOPBACK=true` sets it: the test's receivers are on 127.0.0.1, over http. */
const loopbackAllowed = Layer.succeed(OutboundPolicy, {
  trustedHosts: new Set<string>(),
  ca: undefined,
  allowLoopback: true
})

/** The service with its background work running (as `cbs serve` runs it) and loopback receivers allowed. */
const WebhookServerLive = testServerOn(
  TestDatabaseLive,
  Layer.mergeAll(Layer.succeed(RunsWorkers, true), loopbackAllowed)
)

/** A retry comes about 5 s after a failure, and a receiver that never answers holds an attempt for 10 s. */
const RETRY_PATIENCE = Duration.seconds(60)

let titles = 0

/** A saved change of the article through the API (a PATCH with the account's key): one `article.changed`. */
const change = (id: ArticleId, key: string) =>
  Effect.gen(function* () {
    const res = yield* patchArticle(id, key, { title: `Changed title ${++titles}` })
    assert.strictEqual(res.status, 200, res.text)
  })

/** The id (`evt_…`) of the account's latest event. */
const lastEventId = (accountId: AccountId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly id: string }>`select 'evt_' || id as id from events
      where account_id = ${accountId} order by id desc limit 1`.pipe(Effect.orDie)
    return row!.id
  })

/** A new account's article, with one endpoint wanting `article.changed` whose receiver answers as `answering`. */
const subscribed = (answering?: Answering) =>
  Effect.gen(function* () {
    const article = yield* articleOfNewAccount()
    const secret = newSecret()
    const rx = yield* receiver([secret], answering)
    const endpointId = yield* endpoint(article.accountId, rx.url, { secret })
    return { ...article, secret, rx, endpointId }
  })

/** Waits until `count` attempts are recorded for the endpoint; the attempts. */
const attemptsWhen = (endpointId: number, count: number, patience: Duration.DurationInput = RETRY_PATIENCE) =>
  eventually(attemptsOf(endpointId), (attempts) => attempts.length >= count, patience)

/**
 * Waits for the endpoint's first attempt, answered `status`, and checks that it disabled the endpoint with a reason
 * that says `reason`, and ended the delivery: failed, with no retry queued.
 */
const disabledByFirstAttempt = (endpointId: number, status: number, reason: string) =>
  Effect.gen(function* () {
    const [attempt] = yield* attemptsWhen(endpointId, 1)
    assert.strictEqual(attempt!.status, status)
    const state = yield* endpointState(endpointId)
    assert.isFalse(state.enabled)
    assert.include(state.disabled_reason, reason)
    const [delivery] = yield* deliveriesOf(endpointId)
    assert.deepInclude(delivery!, { state: "failed", attempts: 1 })
    assert.strictEqual(yield* retryJobsOf(delivery!.id), 0)
  })

/** A 50 MB answer, written as fast as the connection takes it, until it is done or the sender hangs up. */
const FIFTY_MB = 50 * 1024 * 1024
const hugeAnswer = (progress: { written: number; closed: boolean }): Answering => {
  return (_n, _req, res) => {
    const chunk = Buffer.alloc(64 * 1024, "x")
    res.writeHead(200, { "content-type": "text/plain", "content-length": String(FIFTY_MB) })
    res.on("close", () => {
      progress.closed = true
    })
    const write = () => {
      while (progress.written < FIFTY_MB && !res.destroyed) {
        progress.written += chunk.length
        if (!res.write(chunk)) {
          res.once("drain", write)
          return
        }
      }
      if (!res.destroyed) res.end()
    }
    write()
  }
}

// The live clock: attempts are timed, signed and scheduled by it.
layer(WebhookServerLive, { timeout: Duration.minutes(2), excludeTestServices: true })("webhook deliveries", (it) => {
  // Each test has its own account, endpoints and receivers: they wait for their retries side by side.
  describe.concurrent("a delivery", () => {
    it.scoped(
      "a PATCH sends one verified article.changed whose webhook-id is the event id, and the attempt is logged",
      () =>
        Effect.gen(function* () {
          const { id, key, accountId, endpointId, rx } = yield* subscribed(answerWith(200, "thanks, got it"))
          yield* change(id, key)
          const [attempt] = yield* attemptsWhen(endpointId, 1)
          const eventId = yield* lastEventId(accountId)
          assert.strictEqual(rx.received.length, 1)
          const [message] = rx.received
          assert.deepStrictEqual(message!.verified, [true])
          assert.strictEqual(message!.headers["webhook-id"], eventId)
          assert.strictEqual(message!.headers["content-type"], "application/json")
          assert.match(message!.headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/=]+$/)
          const body = JSON.parse(message!.body)
          assert.strictEqual(body.id, eventId)
          assert.strictEqual(body.type, "article.changed")
          assert.strictEqual(body.data.id, id)
          assert.isString(body.created_at)
          assert.strictEqual(attempt!.status, 200)
          assert.isAtLeast(attempt!.duration_ms, 0)
          assert.strictEqual(attempt!.response, "thanks, got it")
          assert.isNull(attempt!.error)
          const [delivery] = yield* deliveriesOf(endpointId)
          assert.deepInclude(delivery!, { message_id: eventId, state: "succeeded", attempts: 1 })
        })
    )

    it.scoped("after a 500 the delivery is tried again with the same webhook-id, and both attempts are logged", () =>
      Effect.gen(function* () {
        const { id, key, endpointId, rx } = yield* subscribed(firstThen(answerWith(500, "try later")))
        yield* change(id, key)
        const attempts = yield* attemptsWhen(endpointId, 2)
        assert.deepStrictEqual(
          attempts.map((attempt) => [attempt.status, attempt.response]),
          [
            [500, "try later"],
            [200, "ok"]
          ]
        )
        assert.strictEqual(rx.received.length, 2)
        assert.deepStrictEqual(
          rx.received.map((message) => message.verified),
          [[true], [true]]
        )
        assert.strictEqual(rx.received[1]!.headers["webhook-id"], rx.received[0]!.headers["webhook-id"])
        assert.strictEqual(rx.received[1]!.body, rx.received[0]!.body)
        const [delivery] = yield* deliveriesOf(endpointId)
        assert.deepInclude(delivery!, { state: "succeeded", attempts: 2 })
      })
    )

    it.scoped("a receiver that does not answer within 10 s is tried again with the same webhook-id", () =>
      Effect.gen(function* () {
        const { id, key, endpointId, rx } = yield* subscribed(firstThen(neverAnswer))
        yield* change(id, key)
        const [timedOut, succeeded] = yield* attemptsWhen(endpointId, 2)
        assert.isNull(timedOut!.status)
        assert.include(timedOut!.error, "did not answer within 10 s")
        // The recorded duration is the timeout's: the attempt cannot have ended before it.
        assert.isAtLeast(timedOut!.duration_ms, 10_000)
        assert.strictEqual(succeeded!.status, 200)
        assert.strictEqual(rx.received.length, 2)
        assert.deepStrictEqual(
          rx.received.map((message) => message.verified),
          [[true], [true]]
        )
        assert.strictEqual(rx.received[1]!.headers["webhook-id"], rx.received[0]!.headers["webhook-id"])
      })
    )

    it.scoped("a redirect is a failed attempt and is not followed", () =>
      Effect.gen(function* () {
        const target = yield* receiver([])
        const { id, key, endpointId } = yield* subscribed(answerWith(302, "", { location: target.url }))
        yield* change(id, key)
        const [attempt] = yield* attemptsWhen(endpointId, 1)
        assert.strictEqual(attempt!.status, 302)
        assert.include(attempt!.error, "redirects are not followed")
        const [delivery] = yield* deliveriesOf(endpointId)
        assert.deepInclude(delivery!, { state: "pending", attempts: 1 })
        // The attempt is recorded after its answer: a followed redirect would have reached the target by now.
        assert.strictEqual(target.received.length, 0)
      })
    )

    it.scoped("a 50 MB answer costs one attempt, of which 1 KiB is kept, and the server stays healthy", () =>
      Effect.gen(function* () {
        const progress = { written: 0, closed: false }
        const { id, key, endpointId, rx } = yield* subscribed(hugeAnswer(progress))
        yield* change(id, key)
        const attempts = yield* attemptsWhen(endpointId, 1)
        assert.strictEqual(attempts.length, 1)
        assert.strictEqual(attempts[0]!.status, 200)
        assert.strictEqual(attempts[0]!.response_bytes, 1024)
        assert.strictEqual(attempts[0]!.response, "x".repeat(1024))
        const [delivery] = yield* deliveriesOf(endpointId)
        assert.deepInclude(delivery!, { state: "succeeded", attempts: 1 })
        assert.strictEqual(rx.received.length, 1)
        // The sender hung up long before the answer's end.
        yield* waitUntil(
          "the sender hangs up",
          Effect.sync(() => progress.closed)
        )
        assert.isBelow(progress.written, FIFTY_MB)
        const health = yield* request("GET", "/healthz")
        assert.strictEqual(health.status, 200)
      })
    )

    it.scoped(
      "an answer with NUL bytes and a character cut at 1 KiB is logged, in whole characters, within 1 KiB",
      () =>
        Effect.gen(function* () {
          // "ok", a NUL byte, then two-byte characters: the 1024th byte is the first half of one.
          const answer = Buffer.concat([Buffer.from("ok\u0000", "utf8"), Buffer.from("é".repeat(600), "utf8")])
          const { id, key, endpointId } = yield* subscribed((_n, _req, res) => {
            res.writeHead(200, { "content-type": "application/octet-stream" })
            res.end(answer)
          })
          yield* change(id, key)
          const attempts = yield* attemptsWhen(endpointId, 1)
          assert.strictEqual(attempts.length, 1)
          assert.strictEqual(attempts[0]!.status, 200)
          // PostgreSQL text holds no NUL: it is left out, and the cut character too.
          assert.strictEqual(attempts[0]!.response, `ok${"é".repeat(510)}`)
          assert.isAtMost(attempts[0]!.response_bytes!, 1024)
          const [delivery] = yield* deliveriesOf(endpointId)
          assert.deepInclude(delivery!, { state: "succeeded", attempts: 1 })
        })
    )

    it.scoped("a connection reset costs one failed attempt; the retry then succeeds", () =>
      Effect.gen(function* () {
        const reset: Answering = (_n, req) => req.socket.resetAndDestroy()
        const { id, key, endpointId, rx } = yield* subscribed(firstThen(reset))
        yield* change(id, key)
        const attempts = yield* attemptsWhen(endpointId, 2)
        assert.strictEqual(attempts.length, 2)
        assert.isNull(attempts[0]!.status)
        assert.match(attempts[0]!.error!, /could not be reached|broke off/)
        assert.strictEqual(attempts[1]!.status, 200)
        assert.strictEqual(rx.received.length, 2)
        const [delivery] = yield* deliveriesOf(endpointId)
        assert.deepInclude(delivery!, { state: "succeeded", attempts: 2 })
      })
    )

    it.scoped("a receiver that never answers does not hold up another endpoint's delivery", () =>
      Effect.gen(function* () {
        const { id, key, accountId, endpointId: stuckId, rx: stuck } = yield* subscribed(neverAnswer)
        yield* change(id, key)
        yield* waitUntil(
          "the stuck receiver has the first delivery",
          Effect.sync(() => stuck.received.length >= 1)
        )
        const secret = newSecret()
        const healthy = yield* receiver([secret])
        const healthyId = yield* endpoint(accountId, healthy.url, { secret })
        yield* change(id, key)
        const [delivered] = yield* attemptsWhen(healthyId, 1)
        // The stuck attempt is still open: its request came in before this delivery was made, and is unanswered.
        assert.deepStrictEqual(yield* attemptsOf(stuckId), [])
        assert.strictEqual(delivered!.status, 200)
        assert.deepStrictEqual(
          healthy.received.map((message) => message.verified),
          [[true]]
        )
      })
    )
  })

  describe("deliveries taken together", () => {
    it.scoped(
      "an event for five endpoints, one of which never answers: the other four are delivered and logged while it is still open",
      () =>
        Effect.gen(function* () {
          const { id, key, accountId, endpointId: stuckId, rx: stuck } = yield* subscribed(neverAnswer)
          const others = yield* Effect.forEach([1, 2, 3, 4], () =>
            Effect.gen(function* () {
              const secret = newSecret()
              const rx = yield* receiver([secret])
              return { rx, endpointId: yield* endpoint(accountId, rx.url, { secret }) }
            })
          )
          yield* change(id, key)
          for (const other of others) {
            const [attempt] = yield* attemptsWhen(other.endpointId, 1)
            assert.strictEqual(attempt!.status, 200)
            assert.deepStrictEqual(
              other.rx.received.map((message) => message.verified),
              [[true]]
            )
          }
          // The stuck delivery was made (its request is open), and its attempt is not over.
          assert.strictEqual(stuck.received.length, 1)
          assert.deepStrictEqual(yield* attemptsOf(stuckId), [])
        })
    )

    it.scoped("two runs of the same jobs at once (an instance taken for dead) log each attempt once", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { accountId } = yield* articleOfNewAccount()
        const secret = newSecret()
        // The receiver holds every answer until both runs have sent each message: both runs make their requests
        // before either can record its attempt.
        const held: Array<() => void> = []
        const rx = yield* receiver([secret], (n, _req, res) => {
          held.push(() => answerWith(200)(n, _req, res))
          if (held.length === 6) for (const answer of held) answer()
        })
        const endpointIds = yield* Effect.forEach([1, 2, 3], () => endpoint(accountId, rx.url, { secret }))
        // Deliveries written without jobs, so that only the runs below make them.
        const batch = yield* Effect.forEach(endpointIds, (endpointId) =>
          Effect.map(
            sql<{ readonly id: number }>`insert into webhook_deliveries (endpoint_id, message_id, payload)
              values (${endpointId}, ${`msg_twice_${endpointId}`}, ${JSON.stringify({ type: "test" })}::jsonb)
              returning id`,
            ([row]) => ({ delivery: Number(row!.id), attempt: 0 })
          )
        )
        const deliver = yield* Deliver
        yield* Effect.all([deliver.attemptAll(batch), deliver.attemptAll(batch)], { concurrency: 2 })
        assert.strictEqual(rx.received.length, 6)
        for (const endpointId of endpointIds) {
          assert.deepStrictEqual(
            (yield* attemptsOf(endpointId)).map((attempt) => attempt.status),
            [200]
          )
          assert.deepInclude((yield* deliveriesOf(endpointId))[0]!, { state: "succeeded", attempts: 1 })
        }
      }).pipe(Effect.provide(Deliver.Default), Effect.provide(loopbackAllowed))
    )
  })

  describe("secrets", () => {
    it.scoped("during a rotation both secrets verify a delivery; after the overlap only the new one", () =>
      Effect.gen(function* () {
        const { id, key, accountId } = yield* articleOfNewAccount()
        const previous = newSecret()
        const current = newSecret()
        const rx = yield* receiver([previous, current])
        const endpointId = yield* endpoint(accountId, rx.url, { secret: previous })
        const sql = yield* SqlClient.SqlClient
        yield* sql`update webhook_endpoints set secret = ${current}, previous_secret = ${previous},
            previous_secret_until = now() + interval '1 hour'
          where id = ${endpointId}`
        yield* change(id, key)
        yield* attemptsWhen(endpointId, 1)
        assert.deepStrictEqual(rx.received[0]!.verified, [true, true])
        assert.strictEqual(rx.received[0]!.headers["webhook-signature"]!.split(" ").length, 2)

        yield* sql`update webhook_endpoints set previous_secret_until = now() - interval '1 second'
          where id = ${endpointId}`
        yield* change(id, key)
        yield* attemptsWhen(endpointId, 2)
        assert.deepStrictEqual(rx.received[1]!.verified, [false, true])
        assert.strictEqual(rx.received[1]!.headers["webhook-signature"]!.split(" ").length, 1)
      })
    )
  })

  describe("the outbound guard, without OUTBOUND_ALLOW_LOOPBACK", () => {
    it.scoped(
      "loopback, private and link-local addresses and http:// URLs are refused and logged as failed attempts",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { accountId } = yield* articleOfNewAccount()
          const local = yield* receiver([])
          const refused: ReadonlyArray<readonly [string, string]> = [
            [local.url, "not an https:// URL"],
            [`https://127.0.0.1:${local.port}/hooks`, "127.0.0.1 is not a public"],
            [`https://localhost:${local.port}/hooks`, "localhost leads to"],
            ["https://10.1.2.3/hooks", "10.1.2.3 is not a public"],
            ["https://192.168.1.20/hooks", "192.168.1.20 is not a public"],
            ["https://169.254.169.254/latest", "169.254.169.254 is not a public"],
            ["https://[::1]/hooks", "::1 is not a public"],
            ["http://hooks.example.com/in", "not an https:// URL"]
          ]
          // One attempt of each, made here as a worker would make it, under the production guard.
          const deliver = yield* Deliver
          for (const [url, expected] of refused) {
            const endpointId = yield* endpoint(accountId, url, { secret: newSecret() })
            const [row] = yield* sql<{ readonly id: number }>`insert into webhook_deliveries
                (endpoint_id, message_id, payload)
              values (${endpointId}, ${`msg_guard_${endpointId}`}, ${JSON.stringify({ type: "test" })}::jsonb)
              returning id`
            yield* deliver.attempt({ delivery: Number(row!.id), attempt: 0 })
            const attempts = yield* attemptsOf(endpointId)
            assert.strictEqual(attempts.length, 1, url)
            assert.isNull(attempts[0]!.status, url)
            assert.include(attempts[0]!.error, expected, url)
            const [delivery] = yield* deliveriesOf(endpointId)
            assert.deepInclude(delivery!, { state: "pending", attempts: 1 }, url)
            assert.isNotNull((yield* endpointState(endpointId)).failing_since, url)
          }
          assert.strictEqual(local.received.length, 0)
        }).pipe(
          Effect.provide(Deliver.Default),
          Effect.provideService(OutboundPolicy, {
            trustedHosts: new Set<string>(),
            ca: undefined,
            allowLoopback: false
          })
        )
    )
  })

  describe("who gets what", () => {
    it.scoped("disabled endpoints, endpoints not wanting the type and other accounts' endpoints get no delivery", () =>
      Effect.gen(function* () {
        const { id, key, accountId, endpointId, rx } = yield* subscribed()
        const other = yield* articleOfNewAccount()
        const quiet = yield* Effect.all(
          [
            { account: accountId, events: ["article.changed"], enabled: false },
            { account: accountId, events: ["backlink.acquired", "article.published"], enabled: true },
            { account: other.accountId, events: ["article.changed"], enabled: true }
          ].map((options) =>
            Effect.gen(function* () {
              const secret = newSecret()
              const silent = yield* receiver([secret])
              const silentId = yield* endpoint(options.account, silent.url, { ...options, secret })
              return { silent, silentId }
            })
          )
        )
        yield* change(id, key)
        yield* attemptsWhen(endpointId, 1)
        assert.strictEqual(rx.received.length, 1)
        for (const { silent, silentId } of quiet) {
          assert.deepStrictEqual(yield* deliveriesOf(silentId), [])
          assert.strictEqual(silent.received.length, 0)
        }
      })
    )
  })

  describe("disabling", () => {
    it.scoped("410 Gone disables the endpoint at once, with the reason, and no retry is queued", () =>
      Effect.gen(function* () {
        const { id, key, endpointId, rx } = yield* subscribed(answerWith(410, "gone"))
        yield* change(id, key)
        yield* disabledByFirstAttempt(endpointId, 410, "410")
        assert.strictEqual(rx.received.length, 1)
      })
    )

    it.scoped("an endpoint failing for 3 days is disabled by its next failed attempt, with the reason", () =>
      Effect.gen(function* () {
        const { id, key, endpointId } = yield* subscribed(answerWith(500))
        const sql = yield* SqlClient.SqlClient
        yield* sql`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute'
          where id = ${endpointId}`
        yield* change(id, key)
        yield* disabledByFirstAttempt(endpointId, 500, "failed for 3 days")
      })
    )

    it.scoped("a success ends an endpoint's failing time, so that its failures count from scratch", () =>
      Effect.gen(function* () {
        const { id, key, endpointId } = yield* subscribed(firstThen(answerWith(200), answerWith(500)))
        const sql = yield* SqlClient.SqlClient
        yield* sql`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute'
          where id = ${endpointId}`
        yield* change(id, key)
        yield* attemptsWhen(endpointId, 1)
        assert.deepInclude(yield* endpointState(endpointId), { enabled: true, failing_since: null })
        // The next failure starts a new failing time instead of disabling the endpoint.
        yield* change(id, key)
        const attempts = yield* attemptsWhen(endpointId, 2)
        assert.strictEqual(attempts[1]!.status, 500)
        const state = yield* endpointState(endpointId)
        assert.isTrue(state.enabled)
        assert.isNotNull(state.failing_since)
      })
    )
  })
})

/**
 * A fresh migrated database of its own (not the test server's, whose workers would take every job): a layer that
 * opens it, which can be built again after it was closed.
 */
const separateDatabase = Effect.gen(function* () {
  const url = yield* freshPostgresUrl
  if (url !== undefined) return layerPostgres(Redacted.make(url), 2)
  return layerEmbedded({ dataDir: yield* embeddedTemplateCopy })
})

describe("a restart", () => {
  it.scopedLive("a delivery sent while no instance runs workers is delivered once one does", () =>
    Effect.gen(function* () {
      const database = yield* separateDatabase
      const secret = newSecret()
      const rx = yield* receiver([secret])

      // An instance without workers (WORKERS=off, or a command): the change's event and its delivery job are written.
      const endpointId = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const events = yield* Events
        const [account] = yield* sql<{ readonly id: AccountId }>`insert into accounts (name) values ('Restart')
          returning id`
        const accountId = account!.id
        const endpointId = yield* insertEndpoint(accountId, rx.url, { secret })
        yield* events
          .record(
            "article.changed",
            sql`select ${accountId}::bigint as account_id, null::bigint as site_id, '{"note":"restart"}'::jsonb as data`
          )
          .pipe(sql.withTransaction)
        return endpointId
      }).pipe(Effect.provide(Events.Default), Effect.provide(database), Effect.scoped)
      assert.strictEqual(rx.received.length, 0)

      // An instance with workers, started afterwards on the same database.
      yield* Effect.gen(function* () {
        const attempts = yield* attemptsWhen(endpointId, 1)
        assert.strictEqual(attempts[0]!.status, 200)
        assert.strictEqual(rx.received.length, 1)
        assert.deepStrictEqual(rx.received[0]!.verified, [true])
        assert.strictEqual(JSON.parse(rx.received[0]!.body).data.note, "restart")
      }).pipe(
        Effect.provide(
          BackgroundWorkLive.pipe(
            Layer.provideMerge(database),
            Layer.provide(Layer.mergeAll(Layer.succeed(RunsWorkers, true), loopbackAllowed))
          )
        ),
        Effect.scoped
      )
    })
  )
})
