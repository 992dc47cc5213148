import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Option } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { eventTypes } from "../src/Domain/Event.js"
import type { AccountId } from "../src/Domain/Ids.js"
import { MAX_WEBHOOK_ENDPOINTS, WebhookEndpointId } from "../src/Domain/Webhook.js"
import { WebhookEndpoints } from "../src/Webhooks/Endpoints.js"
import { cbs } from "./support/Cbs.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const TestLive = Layer.mergeAll(Accounts.Default, WebhookEndpoints.Default).pipe(
  Layer.provideMerge(TestDatabaseLive),
  Layer.merge(NodeContext.layer)
)

/** A public address that needs no name service: nothing is fetched when an endpoint is created. */
const PUBLIC_URL = "https://93.184.215.14/webhooks"

let counter = 0
const newAccount = Effect.gen(function* () {
  const email = `hooks${++counter}-${Date.now()}@example.com`
  const { accountId } = yield* Effect.flatMap(Accounts, (accounts) =>
    accounts.create({ email, name: "Hooks Ltd", password: Option.none(), isAdmin: false })
  ).pipe(Effect.orDie)
  return { email, accountId }
})

const endpointCount = (accountId?: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    (accountId === undefined
      ? sql<{ n: number }>`select count(*)::int as n from webhook_endpoints`
      : sql<{ n: number }>`select count(*)::int as n from webhook_endpoints where account_id = ${accountId}`
    ).pipe(Effect.map(([row]) => row!.n))
  ).pipe(Effect.orDie)

const stored = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      secret: string
      previous_secret: string | null
      overlap_hours: number | null
      enabled: boolean
      disabled_reason: string | null
      failing_since: string | null
    }>`select secret, previous_secret, enabled, disabled_reason, failing_since,
        round(extract(epoch from previous_secret_until - now()) / 3600)::int as overlap_hours
      from webhook_endpoints where id = ${id}`.pipe(Effect.map(([row]) => row!))
  ).pipe(Effect.orDie)

const create = (accountId: AccountId, url: string, events: ReadonlyArray<string> = eventTypes) =>
  Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.create(accountId, { url, events }))

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 bytes. */
const assertSecret = (secret: string) => {
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  assert.strictEqual(Buffer.from(secret.slice(6), "base64").length, 32)
}

/** Every way a new endpoint is refused, with what the refusal must say. */
const REFUSALS: ReadonlyArray<{
  readonly why: string
  readonly url: string
  readonly events?: ReadonlyArray<string>
  readonly says: RegExp
}> = [
  { why: "plain http", url: "http://93.184.215.14/hook", says: /^url: must start with https:\/\// },
  { why: "another scheme", url: "ftp://93.184.215.14/hook", says: /^url: must start with https:\/\/$/ },
  { why: "not a URL", url: "example dot com", says: /^url: is not a URL: give a full address/ },
  { why: "an empty address", url: "  ", says: /^url: is missing/ },
  {
    why: "too long",
    url: `https://93.184.215.14/${"a".repeat(2048)}`,
    says: /^url: must be at most 2048 characters: give a shorter address$/
  },
  { why: "a password", url: "https://user:secret@93.184.215.14/hook", says: /^url: must not hold a user name/ },
  {
    why: "a private address",
    url: "https://10.1.2.3/hook",
    says: /^url: 10\.1\.2\.3 is not a public internet address/
  },
  { why: "loopback", url: "https://127.0.0.1:8443/hook", says: /^url: 127\.0\.0\.1 is not a public internet address/ },
  {
    why: "a name for this machine",
    url: "https://localhost/hook",
    says: /^url: localhost leads to 127\.0\.0\.1, which is not a public internet address/
  },
  { why: "link-local", url: "https://[fe80::1]/hook", says: /is not a public internet address/ },
  { why: "a private address written as IPv6", url: "https://[::ffff:10.0.0.1]/hook", says: /is not a public/ },
  {
    why: "a name that does not resolve",
    url: "https://no-such-host.invalid/hook",
    says: /^url: the name no-such-host\.invalid could not be resolved; give an address on the public internet$/
  },
  {
    why: "an unknown event type",
    url: PUBLIC_URL,
    events: ["article.changed", "article.deleted"],
    says: /^events\.1: article\.deleted is not an event type: choose among article\.changed, /
  },
  { why: "no event type", url: PUBLIC_URL, events: [], says: /^events: none is chosen: choose at least one of / }
]

layer(TestLive)("webhook endpoints", (it) => {
  describe("the service", () => {
    it.effect("create answers the id, address, event types and a Standard Webhooks secret; list never shows it", () =>
      Effect.gen(function* () {
        const { accountId } = yield* newAccount
        const created = yield* create(accountId, PUBLIC_URL, ["backlink.acquired", "article.changed"])
        assert.strictEqual(created.url, PUBLIC_URL)
        // Stored in the interface's order, whatever order they were chosen in.
        assert.deepStrictEqual(created.events, ["article.changed", "backlink.acquired"])
        assertSecret(created.secret)
        assert.strictEqual((yield* stored(created.id)).secret, created.secret)
        const listed = yield* Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.list(accountId))
        assert.strictEqual(listed.length, 1)
        assert.deepStrictEqual(
          { ...listed[0]! },
          {
            id: created.id,
            url: PUBLIC_URL,
            events: ["article.changed", "backlink.acquired"],
            enabled: true,
            disabled_reason: null,
            failing_since: null,
            created_at: listed[0]!.created_at
          }
        )
        assert.match(listed[0]!.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
        assert.notInclude(JSON.stringify(listed), created.secret)
        // Two endpoints never share a secret.
        const second = yield* create(accountId, PUBLIC_URL)
        assert.notStrictEqual(second.secret, created.secret)
      })
    )

    it.effect("rotate shows a new secret once and keeps the previous one signing for 24 hours", () =>
      Effect.gen(function* () {
        const { accountId } = yield* newAccount
        const created = yield* create(accountId, PUBLIC_URL)
        const rotated = yield* Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.rotate(accountId, created.id))
        assertSecret(rotated.secret)
        assert.notStrictEqual(rotated.secret, created.secret)
        const row = yield* stored(created.id)
        assert.strictEqual(row.secret, rotated.secret)
        assert.strictEqual(row.previous_secret, created.secret)
        assert.strictEqual(row.overlap_hours, 24)
      })
    )

    it.effect(
      "disable stops an endpoint; enable starts it again and forgets why it was disabled and its failures",
      () =>
        Effect.gen(function* () {
          const { accountId } = yield* newAccount
          const { id } = yield* create(accountId, PUBLIC_URL)
          const endpoints = yield* WebhookEndpoints
          const disabled = yield* endpoints.disable(accountId, id)
          assert.isFalse(disabled.enabled)
          assert.isNull(disabled.disabled_reason)
          // As the delivery worker leaves an endpoint that answered 410 Gone.
          yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`update webhook_endpoints set disabled_reason = 'It answered 410 Gone.', failing_since = now()
            where id = ${id}`.pipe(Effect.orDie)
          )
          const enabled = yield* endpoints.enable(accountId, id)
          assert.isTrue(enabled.enabled)
          const row = yield* stored(id)
          assert.deepStrictEqual([row.enabled, row.disabled_reason, row.failing_since], [true, null, null])
        })
    )

    it.effect("delete removes the endpoint; another account's id is not found and changes nothing", () =>
      Effect.gen(function* () {
        const owner = yield* newAccount
        const other = yield* newAccount
        const { id, secret } = yield* create(owner.accountId, PUBLIC_URL)
        const endpoints = yield* WebhookEndpoints
        for (const attempt of [
          Effect.asVoid(endpoints.find(other.accountId, id)),
          Effect.asVoid(endpoints.rotate(other.accountId, id)),
          Effect.asVoid(endpoints.disable(other.accountId, id)),
          Effect.asVoid(endpoints.enable(other.accountId, id)),
          Effect.asVoid(endpoints.remove(other.accountId, id))
        ]) {
          const result = yield* Effect.either(attempt)
          assert.isTrue(Either.isLeft(result) && result.left._tag === "NotFound")
        }
        const row = yield* stored(id)
        assert.deepStrictEqual([row.secret, row.enabled, row.previous_secret], [secret, true, null])
        assert.deepStrictEqual(yield* endpoints.list(other.accountId), [])

        yield* endpoints.remove(owner.accountId, id)
        assert.strictEqual(yield* endpointCount(owner.accountId), 0)
        const again = yield* Effect.either(endpoints.remove(owner.accountId, id))
        assert.isTrue(Either.isLeft(again) && again.left._tag === "NotFound")
      })
    )

    it.effect("each refusal is one line naming the field, what is wrong and how to fix it, and stores nothing", () =>
      Effect.gen(function* () {
        const { accountId } = yield* newAccount
        const before = yield* endpointCount()
        for (const refusal of REFUSALS) {
          const result = yield* Effect.either(create(accountId, refusal.url, refusal.events))
          assert.isTrue(Either.isLeft(result), refusal.why)
          const error = Either.getLeft(result).pipe(Option.getOrThrow)
          assert.strictEqual(error._tag, "ValidationError", refusal.why)
          assert.match(error.message, refusal.says, refusal.why)
          assert.notInclude(error.message, "\n", refusal.why)
        }
        assert.strictEqual(yield* endpointCount(), before)
      })
    )

    it.effect(`an account has at most ${MAX_WEBHOOK_ENDPOINTS} endpoints; the next is refused with the limit`, () =>
      Effect.gen(function* () {
        const { accountId } = yield* newAccount
        yield* Effect.all(
          Array.from({ length: MAX_WEBHOOK_ENDPOINTS }, () => create(accountId, PUBLIC_URL)),
          { concurrency: 4 }
        )
        const refused = yield* Effect.flip(create(accountId, PUBLIC_URL))
        assert.strictEqual(refused._tag, "ValidationError")
        assert.strictEqual(refused.limit, MAX_WEBHOOK_ENDPOINTS)
        assert.match(refused.message, /must be at most 20 per account; delete one you no longer use first/)
        assert.strictEqual(yield* endpointCount(accountId), MAX_WEBHOOK_ENDPOINTS)
        // Another account is not held back by this one's endpoints.
        const other = yield* newAccount
        yield* create(other.accountId, PUBLIC_URL)
      })
    )

    it.effect(
      "with OUTBOUND_ALLOW_LOOPBACK, http to this machine is accepted; other private or http addresses are not",
      () =>
        Effect.gen(function* () {
          const { accountId } = yield* newAccount
          const settings = ConfigProvider.fromMap(new Map([["OUTBOUND_ALLOW_LOOPBACK", "true"]])).pipe(
            ConfigProvider.orElse(() => ConfigProvider.fromEnv())
          )
          const endpoints = yield* WebhookEndpoints.pipe(
            Effect.provide(WebhookEndpoints.Default.pipe(Layer.provide(Layer.setConfigProvider(settings))))
          )
          for (const url of ["http://127.0.0.1:55501/hook", "http://localhost:55501/hook", "https://127.0.0.1/hook"]) {
            const created = yield* endpoints.create(accountId, { url, events: eventTypes })
            assert.strictEqual(created.url, url)
          }
          for (const [url, says] of [
            ["http://93.184.215.14/hook", /^url: must start with https:\/\/ \(plain http is only for this machine/],
            ["https://10.1.2.3/hook", /^url: 10\.1\.2\.3 is not a public internet address \(private, link-local/],
            ["https://192.168.1.5/hook", /is not a public internet address/]
          ] as const) {
            const refused = yield* Effect.flip(endpoints.create(accountId, { url, events: eventTypes }))
            assert.match(refused.message, says, url)
          }
          assert.strictEqual(yield* endpointCount(accountId), 3)
        })
    )
  })

  describe("cbs webhook", () => {
    it.effect("create prints the id and the secret once; list shows the endpoint without it; delete removes it", () =>
      Effect.gen(function* () {
        const { email, accountId } = yield* newAccount
        const created = yield* cbs("webhook", "create", "--account", email, "--url", PUBLIC_URL)
        assert.strictEqual(created.code, 0, created.stderr)
        const id = Number(/^webhook endpoint id: (\d+)$/m.exec(created.stdout)?.[1])
        const secret = /^secret: (\S+)$/m.exec(created.stdout)?.[1] ?? ""
        assertSecret(secret)
        assert.include(created.stdout, `events: ${eventTypes.join(",")}`)
        assert.strictEqual((yield* stored(id)).secret, secret)

        const listed = yield* cbs("webhook", "list", "--account", email)
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.strictEqual(listed.stdout, `${id}  ${PUBLIC_URL}  ${eventTypes.join(",")}  enabled`)
        const json = JSON.parse((yield* cbs("webhook", "list", "--account", email, "--json")).stdout)
        assert.strictEqual(json.account_id, accountId)
        assert.deepStrictEqual(
          json.endpoints.map((e: { id: number; enabled: boolean }) => [e.id, e.enabled]),
          [[id, true]]
        )
        assert.notInclude(JSON.stringify(json), secret)

        const deleted = yield* cbs("webhook", "delete", "--id", String(id))
        assert.strictEqual(deleted.code, 0, deleted.stderr)
        assert.strictEqual(deleted.stdout, `Webhook endpoint ${id} (${PUBLIC_URL}) is deleted, with its deliveries.`)
        assert.strictEqual(yield* endpointCount(accountId), 0)
        const again = yield* cbs("webhook", "delete", "--id", String(id))
        assert.strictEqual(again.code, 1)
        assert.strictEqual(again.stderr, `cbs: no webhook endpoint has id ${id}`)
        assert.strictEqual(
          (yield* cbs("webhook", "list", "--account", email)).stdout,
          `${email} has no webhook endpoints.`
        )
      })
    )

    it.effect("create --json prints exactly id, url, events and secret; --events picks the types", () =>
      Effect.gen(function* () {
        const { email } = yield* newAccount
        const created = yield* cbs(
          "webhook",
          "create",
          "--account",
          email,
          "--url",
          PUBLIC_URL,
          "--events",
          "backlink.acquired, article.published",
          "--json"
        )
        assert.strictEqual(created.code, 0, created.stderr)
        const json = JSON.parse(created.stdout)
        assert.deepStrictEqual(Object.keys(json), ["id", "url", "events", "secret"])
        assert.deepStrictEqual(json.events, ["article.published", "backlink.acquired"])
        assert.strictEqual(json.url, PUBLIC_URL)
        assertSecret(json.secret)
        assert.isTrue(WebhookEndpointId.make(json.id) > 0)
      })
    )

    it.effect("bad input is one cbs: line on stderr, exit status 1, and nothing stored", () =>
      Effect.gen(function* () {
        const { email } = yield* newAccount
        const before = yield* endpointCount()
        for (const [args, says] of [
          [["--account", email, "--url", "http://93.184.215.14/hook"], "cbs: url: must start with https://"],
          [
            ["--account", email, "--url", "https://10.1.2.3/hook"],
            "cbs: url: 10.1.2.3 is not a public internet address"
          ],
          [["--account", email, "--url", PUBLIC_URL, "--events", "article.gone"], "cbs: events.0: article.gone is not"],
          [["--account", email, "--url", PUBLIC_URL, "--events", " , "], "cbs: events: none is chosen"],
          [["--account", "nobody@example.com", "--url", PUBLIC_URL], "cbs: no account has a user with e-mail nobody"]
        ] as const) {
          const result = yield* cbs("webhook", "create", ...args)
          assert.strictEqual(result.code, 1, `${args.join(" ")}: ${result.stderr}`)
          assert.match(result.stderr, /^cbs: \S[^\n]*$/)
          assert.isTrue(result.stderr.startsWith(says), result.stderr)
          assert.strictEqual(result.stdout, "")
        }
        assert.strictEqual(yield* endpointCount(), before)
      })
    )
  })
})
