import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AppConfig } from "../Config.js"
import { atMostMessage } from "../Domain/Bounds.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import { eventTypes } from "../Domain/Event.js"
import type { AccountId } from "../Domain/Ids.js"
import {
  MAX_WEBHOOK_ENDPOINTS,
  MAX_WEBHOOK_URL,
  NewWebhookEndpoint,
  type WebhookEndpointId
} from "../Domain/Webhook.js"
import { allLoopback, checkOutboundHost } from "../Http/OutboundAddress.js"
import { WebhooksRepo } from "./Repo.js"

const decodeNew = Schema.decodeUnknown(NewWebhookEndpoint)

/** A signing secret in the Standard Webhooks format: `whsec_` and the base64 of 32 random bytes. */
const newSigningSecret = () => `whsec_${randomBytes(32).toString("base64")}`

const refused = (message: string) => new ValidationError({ message })

const notFound = () => new NotFound({ message: "No webhook endpoint with that id on this account." })

/**
 * An account's webhook endpoints, managed like its API keys: created with an address and the event types wanted, and
 * a secret shown once (and again, a new one, at each rotation); listed without it; disabled, enabled, deleted. Every
 * operation is on the account's own endpoints: another account's id is not found.
 */
export class WebhookEndpoints extends Effect.Service<WebhookEndpoints>()("Webhooks/Endpoints", {
  dependencies: [WebhooksRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const sql = yield* SqlClient.SqlClient
    const reach = { loopback: (yield* AppConfig).outboundAllowLoopback }

    /**
     * The rule of a new endpoint, whichever door creates it: an https URL (http only to this machine's own addresses,
     * and only with OUTBOUND_ALLOW_LOOPBACK) of at most MAX_WEBHOOK_URL characters, without a user name or password,
     * whose host resolves only to addresses deliveries may reach; at least one event type, each a known one. A
     * refusal is a `ValidationError` naming the field, what is wrong and how to put it right.
     */
    const checked = (input: { readonly url: string; readonly events: ReadonlyArray<string> }) =>
      Effect.gen(function* () {
        const given = yield* Effect.mapError(decodeNew(input), fromParseError)
        const url = new URL(given.url.trim())
        if (url.href.length > MAX_WEBHOOK_URL) {
          return yield* new ValidationError({
            message: `url: ${atMostMessage(MAX_WEBHOOK_URL, "characters")}: give a shorter address`,
            limit: MAX_WEBHOOK_URL
          })
        }
        if (url.protocol === "http:" && !reach.loopback) {
          return yield* refused("url: must start with https:// (deliveries are never sent over plain http)")
        }
        const addresses = yield* checkOutboundHost(url.hostname, reach).pipe(
          Effect.mapError((failure) => refused(`url: ${failure.message}; give an address on the public internet`))
        )
        if (url.protocol === "http:" && !allLoopback(addresses)) {
          return yield* refused("url: must start with https:// (plain http is only for this machine's own addresses)")
        }
        return { url: url.href, events: eventTypes.filter((type) => given.events.includes(type)) }
      })

    /** Creates an endpoint; its secret is in the answer, the only time it is shown. Nothing is stored on a refusal. */
    const create = Effect.fn("WebhookEndpoints.create")(function* (
      accountId: AccountId,
      input: { readonly url: string; readonly events: ReadonlyArray<string> }
    ) {
      const { url, events } = yield* checked(input)
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* repo.lockAccount(accountId)
            if ((yield* repo.count(accountId)) >= MAX_WEBHOOK_ENDPOINTS) {
              return yield* new ValidationError({
                message: `webhook endpoints: ${atMostMessage(MAX_WEBHOOK_ENDPOINTS, "")} per account; delete one you no longer use first`,
                limit: MAX_WEBHOOK_ENDPOINTS
              })
            }
            return yield* repo.insert({ account_id: accountId, url, events, secret: newSigningSecret() })
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** Gives an endpoint a new secret, shown this once; the previous one also signs for 24 hours. */
    const rotate = Effect.fn("WebhookEndpoints.rotate")(function* (accountId: AccountId, id: WebhookEndpointId) {
      const rotated = yield* repo.rotate(accountId, id, newSigningSecret())
      return yield* Option.match(rotated, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
    })

    const found = <A>(result: Effect.Effect<Option.Option<A>>) =>
      Effect.flatMap(result, Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed }))

    return {
      create,
      rotate,
      list: (accountId: AccountId) => repo.list(accountId),
      find: (accountId: AccountId, id: WebhookEndpointId) => found(repo.find(accountId, id)),
      /** Stops posting to the endpoint; disabled by a person, it has no reason to show. */
      disable: (accountId: AccountId, id: WebhookEndpointId) => found(repo.setEnabled(accountId, id, false)),
      /** Posts to the endpoint again, its past failures forgotten. */
      enable: (accountId: AccountId, id: WebhookEndpointId) => found(repo.setEnabled(accountId, id, true)),
      /** Deletes the endpoint with its deliveries and their log. */
      remove: (accountId: AccountId, id: WebhookEndpointId) => found(repo.remove(accountId, id)),
      /** Deletes an endpoint of any account (the operator's command line). */
      removeAny: (id: WebhookEndpointId) => repo.removeAny(id)
    }
  })
}) {}
