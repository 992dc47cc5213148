import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { eventTypes } from "../src/Domain/Event.js"
import type { AccountId } from "../src/Domain/Ids.js"
import { WebhookEndpoints } from "../src/Webhooks/Endpoints.js"
import { clockStarts } from "./support/Clock.js"
import type { Browser } from "./support/McpClient.js"
import { TestServerLive } from "./support/TestServer.js"
import { assertPageHeaders, open, rowCount, rowWith, signedInAccount } from "./support/WebPages.js"

const startClock = clockStarts("61 seconds")

/** A public address that needs no name service: nothing is fetched when an endpoint is created. */
const PUBLIC_URL = "https://93.184.215.14/hooks"

/** A new user, signed in, on the connection page: the page and its CSRF token. */
const connectionPage = Effect.gen(function* () {
  yield* startClock
  const account = yield* signedInAccount()
  const page = yield* open(account.browser, "/connection")
  return { ...account, page, csrf: page.csrf }
})

/** Posts a form whose fields may repeat (the checked event types). */
const postForm = (browser: Browser, path: string, pairs: ReadonlyArray<readonly [string, string]>) =>
  browser.send(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(pairs.map(([name, value]) => [name, value])).toString()
  })

const addEndpoint = (browser: Browser, csrf: string, url: string, events: ReadonlyArray<string> = eventTypes) =>
  postForm(browser, "/connection/webhooks", [
    ["csrf", csrf],
    ["url", url],
    ...events.map((t) => ["events", t] as const)
  ])

/** The secret a page shows, once. */
const shownSecret = (page: string) =>
  /id="webhook-secret" class="secret" type="text" value="(whsec_[^"]+)"/.exec(page)?.[1]

const sql = SqlClient.SqlClient

const endpointsOf = (accountId: AccountId) => Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.list(accountId))

const secretOf = (id: number) =>
  Effect.flatMap(sql, (db) =>
    db<{ secret: string }>`select secret from webhook_endpoints where id = ${id}`.pipe(
      Effect.map(([row]) => row!.secret)
    )
  ).pipe(Effect.orDie)

const deliveryJobs = Effect.flatMap(sql, (db) =>
  db<{ data: { delivery: number; attempt: number } }>`
    select data from pgboss.job where name = 'webhook-delivery' order by created_on`.pipe(
    Effect.map((rows) => rows.map((row) => row.data))
  )
).pipe(Effect.orDie)

const jobCount = Effect.flatMap(sql, (db) =>
  db<{ n: number }>`select count(*)::int as n from pgboss.job where name = 'webhook-delivery'`.pipe(
    Effect.map(([row]) => row!.n)
  )
).pipe(Effect.orDie)

/** A delivery of `endpoint` as the event path writes one, in `state` after `attempts` attempts. */
const insertDelivery = (
  endpoint: number,
  options: { readonly event: number; readonly attempts: number; readonly state: string }
) =>
  Effect.flatMap(sql, (db) =>
    db<{ id: number }>`
      insert into webhook_deliveries (endpoint_id, message_id, payload, state, attempts)
      values (${endpoint}, ${`evt_${options.event}`},
        ${JSON.stringify({ id: `evt_${options.event}`, type: "article.changed", created_at: "2026-11-27T10:00:00Z", data: {} })}::jsonb,
        ${options.state}, ${options.attempts})
      returning id`.pipe(Effect.map(([row]) => row!.id))
  ).pipe(Effect.orDie)

const insertAttempt = (
  delivery: number,
  endpoint: number,
  attempt: {
    readonly minutesAgo: number
    readonly status: number | null
    readonly duration: number
    readonly response?: string | null
    readonly error?: string | null
  }
) =>
  Effect.flatMap(
    sql,
    (db) =>
      db`insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, response, error)
      values (${delivery}, ${endpoint}, now() - make_interval(mins => ${attempt.minutesAgo}), ${attempt.status},
        ${attempt.duration}, ${attempt.response ?? null}, ${attempt.error ?? null})`
  ).pipe(Effect.orDie)

/** A signed-in user with one endpoint made through the service: its id. */
const withEndpoint = Effect.gen(function* () {
  const account = yield* connectionPage
  const created = yield* Effect.flatMap(WebhookEndpoints, (endpoints) =>
    endpoints.create(account.accountId, { url: PUBLIC_URL, events: eventTypes })
  )
  return { ...account, endpoint: created.id, secret: created.secret }
})

layer(TestServerLive)("web pages: webhooks", (it) => {
  describe("endpoints on the connection page", () => {
    it.effect(
      "an endpoint added on the page shows its secret once; the list then shows its state, never the secret",
      () =>
        Effect.gen(function* () {
          const { browser, accountId, csrf, page } = yield* connectionPage
          // Every event type is chosen unless the person unticks some.
          assert.strictEqual(
            (page.text.match(/name="events"\s+value="[a-z._]+" checked>/g) ?? []).length,
            eventTypes.length
          )
          const created = yield* addEndpoint(browser, csrf, PUBLIC_URL, ["article.published", "backlink.acquired"])
          assert.strictEqual(created.status, 200, created.text)
          assertPageHeaders(created)
          assert.include(created.text, "will not be shown again")
          const secret = shownSecret(created.text)
          assert.match(secret ?? "", /^whsec_/)
          const [endpoint] = yield* endpointsOf(accountId)
          assert.deepStrictEqual(endpoint!.events, ["article.published", "backlink.acquired"])
          assert.strictEqual(yield* secretOf(endpoint!.id), secret)

          const listing = yield* open(browser, "/connection")
          const row = rowWith(listing.text, PUBLIC_URL)
          assert.include(row, "<code>article.published</code><br><code>backlink.acquired</code>")
          assert.include(row, '<span class="badge ok">Enabled</span>')
          assert.include(row, `href="/connection/webhooks/${endpoint!.id}/deliveries"`)
          assert.notInclude(listing.text, secret!)
        })
    )

    it.effect("a refused address is shown again with one line saying why, and nothing is stored", () =>
      Effect.gen(function* () {
        const { browser, accountId, csrf } = yield* connectionPage
        for (const [url, events, says] of [
          ["http://93.184.215.14/hooks", ["article.changed"], "url: must start with https://"],
          ["https://10.0.0.7/hooks", ["article.changed"], "url: 10.0.0.7 is not a public internet address"],
          [PUBLIC_URL, [], "events: none is chosen: choose at least one of"]
        ] as const) {
          const refused = yield* addEndpoint(browser, csrf, url, events)
          assert.strictEqual(refused.status, 400, url)
          assert.include(refused.text, `The endpoint was not added: ${says}`)
          assert.include(refused.text, `value="${url}"`)
          assert.isUndefined(shownSecret(refused.text))
          // What was chosen stays chosen, and only that.
          assert.strictEqual(
            (refused.text.match(/name="events"\s+value="[a-z._]+" checked>/g) ?? []).length,
            events.length
          )
        }
        assert.deepStrictEqual(yield* endpointsOf(accountId), [])
      })
    )

    it.effect("every webhook form without the session's CSRF token is 403 and changes nothing", () =>
      Effect.gen(function* () {
        const { browser, accountId, endpoint, secret, csrf } = yield* withEndpoint
        const delivery = yield* insertDelivery(endpoint, { event: 1, attempts: 1, state: "failed" })
        const jobs = yield* jobCount
        for (const fields of [{}, { csrf: `${csrf.slice(1)}x` }]) {
          for (const path of [
            `/connection/webhooks/${endpoint}/rotate`,
            `/connection/webhooks/${endpoint}/disable`,
            `/connection/webhooks/${endpoint}/delete`,
            `/connection/webhooks/${endpoint}/test`,
            `/connection/webhooks/${endpoint}/deliveries/${delivery}/resend`
          ]) {
            const reply = yield* browser.post(path, fields)
            assert.strictEqual(reply.status, 403, path)
            assertPageHeaders(reply)
          }
          const create = yield* browser.post("/connection/webhooks", {
            ...fields,
            url: PUBLIC_URL,
            events: "article.changed"
          })
          assert.strictEqual(create.status, 403)
          assert.isUndefined(shownSecret(create.text))
        }
        const [only, ...more] = yield* endpointsOf(accountId)
        assert.deepStrictEqual([only!.id, only!.enabled, more.length], [endpoint, true, 0])
        assert.strictEqual(yield* secretOf(endpoint), secret)
        assert.strictEqual(yield* jobCount, jobs)
        const [state] = yield* Effect.flatMap(sql, (db) =>
          db<{
            state: string
            n: number
          }>`select (select state from webhook_deliveries where id = ${delivery}) as state,
            (select count(*)::int from webhook_deliveries where endpoint_id = ${endpoint}) as n`.pipe(Effect.orDie)
        )
        assert.deepStrictEqual(state, { state: "failed", n: 1 })
      })
    )

    it.effect(
      "Rotate shows a new secret once; Disable and Enable come back to the list, which shows why and since when",
      () =>
        Effect.gen(function* () {
          const { browser, endpoint, secret, csrf } = yield* withEndpoint
          const rotated = yield* browser.post(`/connection/webhooks/${endpoint}/rotate`, { csrf })
          assert.strictEqual(rotated.status, 200, rotated.text)
          assert.include(rotated.text, "keeps signing deliveries for 24 hours")
          const fresh = shownSecret(rotated.text)
          assert.match(fresh ?? "", /^whsec_/)
          assert.notStrictEqual(fresh, secret)
          assert.strictEqual(yield* secretOf(endpoint), fresh)
          assert.notInclude((yield* open(browser, "/connection")).text, fresh!)

          const disabled = yield* browser.post(`/connection/webhooks/${endpoint}/disable`, { csrf })
          assert.strictEqual(disabled.status, 303)
          assert.strictEqual(disabled.location, "/connection?done=webhook-disabled#webhooks")
          const listing = yield* open(browser, "/connection?done=webhook-disabled")
          assert.include(listing.text, "The webhook endpoint was disabled.")
          assert.include(rowWith(listing.text, PUBLIC_URL), 'Disabled</span> <span class="muted">by a person</span>')
          assert.include(rowWith(listing.text, PUBLIC_URL), `action="/connection/webhooks/${endpoint}/enable"`)

          // As the delivery worker leaves an endpoint that failed for three days.
          yield* Effect.flatMap(sql, (db) =>
            db`update webhook_endpoints set disabled_reason = 'Every delivery failed for 3 days.',
            failing_since = '2026-11-20T08:00:00Z' where id = ${endpoint}`.pipe(Effect.orDie)
          )
          const failing = rowWith((yield* open(browser, "/connection")).text, PUBLIC_URL)
          assert.include(failing, "<bdi>Every delivery failed for 3 days.</bdi>")
          assert.include(failing, 'Failing since <time datetime="2026-11-20T08:00:00Z">')

          const enabled = yield* browser.post(`/connection/webhooks/${endpoint}/enable`, { csrf })
          assert.strictEqual(enabled.location, "/connection?done=webhook-enabled#webhooks")
          const again = rowWith((yield* open(browser, "/connection")).text, PUBLIC_URL)
          assert.include(again, '<span class="badge ok">Enabled</span>')
          assert.notInclude(again, "Failing since")
        })
    )

    it.effect(
      "Delete asks first on a page naming the endpoint; only its button deletes; another account gets 404",
      () =>
        Effect.gen(function* () {
          const { browser, accountId, endpoint } = yield* withEndpoint
          const other = yield* signedInAccount()
          const theirs = yield* open(other.browser, "/connection")
          for (const path of ["delete", "deliveries"]) {
            assert.strictEqual((yield* other.browser.get(`/connection/webhooks/${endpoint}/${path}`)).status, 404, path)
          }
          for (const path of ["rotate", "disable", "enable", "delete", "test"]) {
            const reply = yield* other.browser.post(`/connection/webhooks/${endpoint}/${path}`, { csrf: theirs.csrf })
            assert.strictEqual(reply.status, 404, path)
          }
          assert.strictEqual((yield* browser.get("/connection/webhooks/abc/deliveries")).status, 404)

          const confirm = yield* open(browser, `/connection/webhooks/${endpoint}/delete`)
          assert.include(confirm.text, `<h1>Delete the webhook endpoint <code><bdi>${PUBLIC_URL}</bdi></code>?</h1>`)
          assert.match(confirm.text, /<form method="post" action="\/connection\/webhooks\/\d+\/delete">/)
          assert.strictEqual((yield* endpointsOf(accountId)).length, 1, "asking changes nothing")
          const deleted = yield* browser.post(`/connection/webhooks/${endpoint}/delete`, { csrf: confirm.csrf })
          assert.strictEqual(deleted.location, "/connection?done=webhook-deleted#webhooks")
          assert.deepStrictEqual(yield* endpointsOf(accountId), [])
          assert.include(
            (yield* open(browser, "/connection?done=webhook-deleted")).text,
            "The webhook endpoint was deleted"
          )
        })
    )
  })

  describe("the delivery log", () => {
    it.effect(
      "lists the attempts of the last 30 days newest first: status or error, time taken, the answer's first 1 KiB; paged",
      () =>
        Effect.gen(function* () {
          const { browser, endpoint } = yield* withEndpoint
          const failed = yield* insertDelivery(endpoint, { event: 41, attempts: 2, state: "failed" })
          yield* insertAttempt(failed, endpoint, {
            minutesAgo: 50,
            status: null,
            duration: 10_000,
            error: "it did not answer within 10 s"
          })
          yield* insertAttempt(failed, endpoint, {
            minutesAgo: 40,
            status: 500,
            duration: 87,
            response: `${"x".repeat(1024)}TAIL`
          })
          const succeeded = yield* insertDelivery(endpoint, { event: 42, attempts: 2, state: "succeeded" })
          // Past the 30 days: no longer shown.
          yield* insertAttempt(succeeded, endpoint, {
            minutesAgo: 31 * 24 * 60,
            status: 200,
            duration: 5,
            response: "old"
          })
          yield* insertAttempt(succeeded, endpoint, { minutesAgo: 30, status: 204, duration: 12, response: "<ok>" })

          const log = yield* open(browser, `/connection/webhooks/${endpoint}/deliveries`)
          assert.strictEqual(rowCount(log.text), 3)
          const times = [...log.text.matchAll(/<th scope="row"><time datetime="([^"]+)">/g)].map((m) => m[1]!)
          assert.deepStrictEqual([...times].sort().reverse(), times, "newest first")
          const ok = rowWith(log.text, "evt_42")
          assert.include(ok, '<span class="badge ok">HTTP 204</span>')
          assert.include(ok, "12\u00a0ms")
          assert.include(ok, '<pre class="wrap">&lt;ok&gt;</pre>')
          assert.include(ok, `action="/connection/webhooks/${endpoint}/deliveries/${succeeded}/resend"`)
          const [latest, first] = (log.text.match(/<tr><th scope="row">[\s\S]*?<\/tr>/g) ?? []).filter((row) =>
            row.includes("evt_41")
          )
          assert.include(latest!, '<span class="badge failed">HTTP 500</span>')
          assert.include(latest!, `${"x".repeat(1024)}</pre>`)
          assert.notInclude(latest!, "TAIL")
          assert.include(latest!, "/resend")
          assert.include(first!, 'No answer</span><span class="why"><bdi>it did not answer within 10 s</bdi>')
          assert.include(first!, "10000\u00a0ms")
          // A delivery is resent from its latest attempt only.
          assert.notInclude(first!, "/resend")
          assert.notInclude(log.text, ">old</pre>")

          // Twenty later attempts (a receiver that answered each of twenty events): the earlier three go to page 2.
          yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              Effect.flatMap(insertDelivery(endpoint, { event: 100 + i, attempts: 1, state: "succeeded" }), (id) =>
                insertAttempt(id, endpoint, { minutesAgo: 20 - i, status: 200, duration: 3 })
              )
          )
          const first20 = yield* open(browser, `/connection/webhooks/${endpoint}/deliveries`)
          assert.strictEqual(rowCount(first20.text), 20)
          assert.include(first20.text, "Page 1 of 2")
          assert.include(first20.text, "evt_119")
          assert.notInclude(first20.text, "evt_42")
          const second = yield* open(browser, `/connection/webhooks/${endpoint}/deliveries?page=2`)
          assert.strictEqual(rowCount(second.text), 3)
          assert.include(second.text, 'rel="prev"')
          assert.include(second.text, "evt_42")
          assert.include(second.text, "evt_41")
        })
    )

    it.effect(
      "Resend puts the delivery back to pending with its job; a test event is a pending webhook.test delivery with its job",
      () =>
        Effect.gen(function* () {
          const { browser, endpoint, csrf } = yield* withEndpoint
          const delivery = yield* insertDelivery(endpoint, { event: 7, attempts: 3, state: "failed" })
          yield* insertAttempt(delivery, endpoint, { minutesAgo: 5, status: 502, duration: 40 })
          const jobsBefore = yield* jobCount

          const resent = yield* browser.post(`/connection/webhooks/${endpoint}/deliveries/${delivery}/resend`, { csrf })
          assert.strictEqual(resent.status, 303, resent.text)
          assert.strictEqual(resent.location, `/connection/webhooks/${endpoint}/deliveries?done=resent`)
          assert.strictEqual(yield* jobCount, jobsBefore + 1)
          assert.deepStrictEqual((yield* deliveryJobs).at(-1), { delivery, attempt: 3 })
          const [row] = yield* Effect.flatMap(sql, (db) =>
            db<{ state: string; due: boolean }>`select state, next_attempt_at <= now() as due from webhook_deliveries
            where id = ${delivery}`.pipe(Effect.orDie)
          )
          assert.deepStrictEqual(row, { state: "pending", due: true })
          const page = yield* open(browser, `/connection/webhooks/${endpoint}/deliveries?done=resent`)
          assert.include(page.text, "The delivery was queued again.")
          assert.include(rowWith(page.text, "evt_7"), '<td data-label="Attempts so far" class="num">3</td>')

          const tested = yield* browser.post(`/connection/webhooks/${endpoint}/test`, { csrf })
          assert.strictEqual(tested.location, `/connection/webhooks/${endpoint}/deliveries?done=test-sent`)
          assert.strictEqual(yield* jobCount, jobsBefore + 2)
          const [test] = yield* Effect.flatMap(sql, (db) =>
            db<{
              id: number
              event_id: number | null
              message_id: string
              state: string
              payload: Record<string, unknown>
            }>`
            select id, event_id, message_id, state, payload from webhook_deliveries
            where endpoint_id = ${endpoint} and id <> ${delivery}`.pipe(Effect.orDie)
          )
          assert.deepStrictEqual((yield* deliveryJobs).at(-1), { delivery: test!.id, attempt: 0 })
          assert.isNull(test!.event_id)
          assert.strictEqual(test!.state, "pending")
          assert.match(test!.message_id, /^msg_test_[A-Za-z0-9_-]+$/)
          assert.deepStrictEqual(Object.keys(test!.payload).sort(), ["created_at", "data", "id", "type"])
          assert.strictEqual(test!.payload["id"], test!.message_id)
          assert.strictEqual(test!.payload["type"], "webhook.test")
          assert.match(String(test!.payload["created_at"]), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
          assert.deepStrictEqual(test!.payload["data"], { endpoint_id: endpoint })
          const logged = yield* open(browser, `/connection/webhooks/${endpoint}/deliveries?done=test-sent`)
          assert.include(logged.text, "A test event was queued.")
          assert.include(rowWith(logged.text, test!.message_id), "<code>webhook.test</code>")
        })
    )

    it.effect("on a disabled endpoint, Resend and Send a test event are refused and queue nothing", () =>
      Effect.gen(function* () {
        const { browser, accountId, endpoint, csrf } = yield* withEndpoint
        const delivery = yield* insertDelivery(endpoint, { event: 9, attempts: 1, state: "failed" })
        yield* browser.post(`/connection/webhooks/${endpoint}/disable`, { csrf })
        const jobs = yield* jobCount
        for (const path of [
          `/connection/webhooks/${endpoint}/test`,
          `/connection/webhooks/${endpoint}/deliveries/${delivery}/resend`
        ]) {
          const refused = yield* browser.post(path, { csrf })
          assert.strictEqual(refused.status, 409, path)
          assert.include(refused.text, "The endpoint is disabled, so nothing can be")
        }
        assert.strictEqual(yield* jobCount, jobs)
        const [counted] = yield* Effect.flatMap(sql, (db) =>
          db<{ n: number; state: string }>`select count(*)::int as n, min(state) as state from webhook_deliveries
            where endpoint_id = ${endpoint}`.pipe(Effect.orDie)
        )
        assert.deepStrictEqual(counted, { n: 1, state: "failed" })
        // A delivery is resent only through its own endpoint.
        const other = yield* Effect.flatMap(WebhookEndpoints, (endpoints) =>
          endpoints.create(accountId, { url: PUBLIC_URL, events: eventTypes })
        )
        const elsewhere = yield* browser.post(`/connection/webhooks/${other.id}/deliveries/${delivery}/resend`, {
          csrf
        })
        assert.strictEqual(elsewhere.status, 404)
        assert.strictEqual(yield* jobCount, jobs)
      })
    )
  })
})
