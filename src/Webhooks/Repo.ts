import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId } from "../Domain/Ids.js"
import {
  PendingDelivery,
  WebhookAttempt,
  WebhookDeliveryId,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointWithSecret
} from "../Domain/Webhook.js"
import { rfc3339 } from "../Sql/SqlFormats.js"

/** How long the delivery log keeps attempts, and so how far back an endpoint's log reaches. */
export const ATTEMPT_DAYS = 30

const Scoped = Schema.Struct({ accountId: AccountId, id: WebhookEndpointId })
const Counted = Schema.Struct({ n: Schema.Number })
const Queued = Schema.Struct({ id: WebhookDeliveryId, attempts: Schema.Number })

/** An account's webhook endpoints, and their deliveries as the delivery log shows and resends them. */
export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("Webhooks/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const listed = sql.unsafe(
      `id, url, events, enabled, disabled_reason, ${rfc3339("failing_since")} as failing_since, ${rfc3339("created_at")} as created_at`
    )

    /** Holds the account's endpoints still until the transaction ends: two creations count one after the other. */
    const lockAccount = (accountId: AccountId) =>
      sql`select pg_advisory_xact_lock(hashtextextended('webhook endpoints ' || ${accountId}::text, 0))`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const count = SqlSchema.single({
      Request: AccountId,
      Result: Counted,
      execute: (accountId) => sql`select count(*)::int as n from webhook_endpoints where account_id = ${accountId}`
    })

    const insert = SqlSchema.single({
      Request: Schema.Struct({
        account_id: AccountId,
        url: Schema.String,
        events: Schema.Array(Schema.String),
        secret: Schema.String
      }),
      Result: WebhookEndpointWithSecret,
      // Arrays are sent as PostgreSQL array literals, which is what text[] columns take.
      execute: (req) => sql`
        insert into webhook_endpoints (account_id, url, events, secret)
        values (${req.account_id}, ${req.url}, ${req.events}::text[], ${req.secret})
        returning id, url, events, secret`
    })

    const list = SqlSchema.findAll({
      Request: AccountId,
      Result: WebhookEndpoint,
      execute: (accountId) => sql`select ${listed} from webhook_endpoints where account_id = ${accountId} order by id`
    })

    const find = SqlSchema.findOne({
      Request: Scoped,
      Result: WebhookEndpoint,
      execute: (req) =>
        sql`select ${listed} from webhook_endpoints where id = ${req.id} and account_id = ${req.accountId}`
    })

    // The secret in use so far keeps signing for a day beside the new one, so that a receiver can change over.
    const rotate = SqlSchema.findOne({
      Request: Schema.Struct({ ...Scoped.fields, secret: Schema.String }),
      Result: WebhookEndpointWithSecret,
      execute: (req) => sql`
        update webhook_endpoints
        set previous_secret = secret, previous_secret_until = now() + interval '24 hours', secret = ${req.secret}
        where id = ${req.id} and account_id = ${req.accountId}
        returning id, url, events, secret`
    })

    // Enabling starts afresh: the reason the service disabled it and the failures before are forgotten.
    const setEnabled = SqlSchema.findOne({
      Request: Schema.Struct({ ...Scoped.fields, enabled: Schema.Boolean }),
      Result: WebhookEndpoint,
      execute: (req) => sql`
        update webhook_endpoints
        set enabled = ${req.enabled}, disabled_reason = null, failing_since = null
        where id = ${req.id} and account_id = ${req.accountId}
        returning ${listed}`
    })

    const remove = SqlSchema.findOne({
      Request: Scoped,
      Result: WebhookEndpoint,
      execute: (req) => sql`
        delete from webhook_endpoints where id = ${req.id} and account_id = ${req.accountId} returning ${listed}`
    })

    // For the operator's command line, which names an endpoint by its id alone.
    const removeAny = SqlSchema.findOne({
      Request: WebhookEndpointId,
      Result: Schema.Struct({ id: WebhookEndpointId, url: Schema.String, account_id: AccountId }),
      execute: (id) => sql`delete from webhook_endpoints where id = ${id} returning id, url, account_id`
    })

    const recentAttempts = sql`a.endpoint_id = w.id and a.attempted_at > now() - make_interval(days => ${ATTEMPT_DAYS})`

    /** The endpoint's attempts of the last ATTEMPT_DAYS days, newest first (index webhook_attempts_endpoint_id_idx). */
    const attempts = SqlSchema.findAll({
      Request: Schema.Struct({ ...Scoped.fields, limit: Schema.Number, offset: Schema.Number }),
      Result: WebhookAttempt,
      execute: (req) => sql`
        select a.id, a.delivery_id, ${sql.unsafe(rfc3339("a.attempted_at"))} as attempted_at, a.status, a.duration_ms,
          left(a.response, 1024) as response, a.error, d.payload->>'type' as type, d.message_id, d.state,
          a.id = (select max(b.id) from webhook_attempts b where b.delivery_id = a.delivery_id) as latest
        from webhook_endpoints w
        join webhook_attempts a on ${recentAttempts}
        join webhook_deliveries d on d.id = a.delivery_id
        where w.id = ${req.id} and w.account_id = ${req.accountId}
        order by a.id desc
        limit ${req.limit} offset ${req.offset}`
    })

    const attemptCount = SqlSchema.single({
      Request: Scoped,
      Result: Counted,
      execute: (req) => sql`
        select count(a.id)::int as n from webhook_endpoints w join webhook_attempts a on ${recentAttempts}
        where w.id = ${req.id} and w.account_id = ${req.accountId}`
    })

    /** The endpoint's deliveries waiting for an attempt, newest first (index webhook_deliveries_endpoint_id_idx). */
    const pending = SqlSchema.findAll({
      Request: Schema.Struct({ ...Scoped.fields, limit: Schema.Number }),
      Result: PendingDelivery,
      execute: (req) => sql`
        select d.id, d.payload->>'type' as type, d.message_id, d.attempts,
          ${sql.unsafe(rfc3339("d.next_attempt_at"))} as next_attempt_at, ${sql.unsafe(rfc3339("d.created_at"))} as created_at
        from webhook_endpoints w join webhook_deliveries d on d.endpoint_id = w.id
        where w.id = ${req.id} and w.account_id = ${req.accountId} and d.state = 'pending'
        order by d.id desc limit ${req.limit}`
    })

    /** Puts one of the endpoint's deliveries back to pending, due now: its id and its attempts so far. */
    const requeue = SqlSchema.findOne({
      Request: Schema.Struct({ ...Scoped.fields, delivery: WebhookDeliveryId }),
      Result: Queued,
      execute: (req) => sql`
        update webhook_deliveries d set state = 'pending', next_attempt_at = now()
        from webhook_endpoints w
        where d.id = ${req.delivery} and d.endpoint_id = w.id and w.id = ${req.id} and w.account_id = ${req.accountId}
        returning d.id, d.attempts`
    })

    /** A test message to the endpoint, pending and due now: its id and its attempts (none). */
    const insertTest = SqlSchema.single({
      Request: Schema.Struct({ id: WebhookEndpointId, message_id: Schema.String, type: Schema.String }),
      Result: Queued,
      execute: (req) => sql`
        insert into webhook_deliveries (endpoint_id, message_id, payload, next_attempt_at)
        values (${req.id}, ${req.message_id},
          jsonb_build_object('id', ${req.message_id}::text, 'type', ${req.type}::text,
            'created_at', ${sql.unsafe(rfc3339("now()"))}, 'data', jsonb_build_object('endpoint_id', ${req.id}::bigint)),
          now())
        returning id, attempts`
    })

    return {
      lockAccount,
      count: (accountId: AccountId) =>
        count(accountId).pipe(
          Effect.map((row) => row.n),
          Effect.orDie
        ),
      insert: (req: Parameters<typeof insert>[0]) => insert(req).pipe(Effect.orDie),
      list: (accountId: AccountId) => list(accountId).pipe(Effect.orDie),
      find: (accountId: AccountId, id: WebhookEndpointId) => find({ accountId, id }).pipe(Effect.orDie),
      rotate: (accountId: AccountId, id: WebhookEndpointId, secret: string) =>
        rotate({ accountId, id, secret }).pipe(Effect.orDie),
      setEnabled: (accountId: AccountId, id: WebhookEndpointId, enabled: boolean) =>
        setEnabled({ accountId, id, enabled }).pipe(Effect.orDie),
      remove: (accountId: AccountId, id: WebhookEndpointId) => remove({ accountId, id }).pipe(Effect.orDie),
      removeAny: (id: WebhookEndpointId) => removeAny(id).pipe(Effect.orDie),
      attempts: (accountId: AccountId, id: WebhookEndpointId, limit: number, offset: number) =>
        attempts({ accountId, id, limit, offset }).pipe(Effect.orDie),
      attemptCount: (accountId: AccountId, id: WebhookEndpointId) =>
        attemptCount({ accountId, id }).pipe(
          Effect.map((row) => row.n),
          Effect.orDie
        ),
      pending: (accountId: AccountId, id: WebhookEndpointId, limit: number) =>
        pending({ accountId, id, limit }).pipe(Effect.orDie),
      requeue: (accountId: AccountId, id: WebhookEndpointId, delivery: WebhookDeliveryId) =>
        requeue({ accountId, id, delivery }).pipe(Effect.orDie),
      insertTest: (id: WebhookEndpointId, message_id: string, type: string) =>
        insertTest({ id, message_id, type }).pipe(Effect.orDie)
    }
  })
}) {}
