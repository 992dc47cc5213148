import { Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { eventTypes } from "../../Domain/Event.js"
import { WebhookEndpointId } from "../../Domain/Webhook.js"
import { WebhookEndpoints } from "../../Webhooks/Endpoints.js"
import { CliError } from "../CliError.js"
import type { Result } from "../Output.js"
import { accountOf, foundById } from "./Found.js"

/** `--events a,b`: the types named, blanks around commas ignored; absent, every type. */
const eventsOf = (events: Option.Option<string>) =>
  Option.match(events, {
    onNone: () => eventTypes,
    onSome: (text) =>
      text
        .split(",")
        .map((type) => type.trim())
        .filter((type) => type !== "")
  })

export const webhookCreate = (args: {
  readonly account: string
  readonly url: string
  readonly events: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const { account_id, email } = yield* accountOf(args.account)
    const endpoints = yield* WebhookEndpoints
    // A URL or an event type the endpoint rule refuses fails the command in the rule's words; nothing is stored.
    const created = yield* endpoints
      .create(account_id, { url: args.url, events: eventsOf(args.events) })
      .pipe(Effect.catchTag("ValidationError", (error) => new CliError({ message: error.message })))
    return {
      text: [
        `webhook endpoint id: ${created.id}`,
        `url: ${created.url}`,
        `events: ${created.events.join(",")}`,
        `secret: ${created.secret}`,
        `account: ${email} (account id ${account_id})`,
        "The secret is shown only this once: store it where your receiver verifies signatures."
      ],
      json: { id: created.id, url: created.url, events: created.events, secret: created.secret }
    } satisfies Result
  }).pipe(Effect.provide([Accounts.Default, WebhookEndpoints.Default]))

export const webhookList = (email: string) =>
  Effect.gen(function* () {
    const { account_id } = yield* accountOf(email)
    const endpoints = yield* Effect.flatMap(WebhookEndpoints, (service) => service.list(account_id))
    const state = (endpoint: (typeof endpoints)[number]) =>
      endpoint.enabled
        ? endpoint.failing_since === null
          ? "enabled"
          : `enabled, failing since ${endpoint.failing_since}`
        : `disabled${endpoint.disabled_reason === null ? "" : ` (${endpoint.disabled_reason})`}`
    return {
      text:
        endpoints.length === 0
          ? [`${email} has no webhook endpoints.`]
          : endpoints.map(
              (endpoint) => `${endpoint.id}  ${endpoint.url}  ${endpoint.events.join(",")}  ${state(endpoint)}`
            ),
      json: {
        account_id,
        endpoints: endpoints.map((endpoint) => ({
          id: endpoint.id,
          url: endpoint.url,
          events: endpoint.events,
          enabled: endpoint.enabled,
          disabled_reason: endpoint.disabled_reason,
          failing_since: endpoint.failing_since,
          created_at: endpoint.created_at
        }))
      }
    } satisfies Result
  }).pipe(Effect.provide([Accounts.Default, WebhookEndpoints.Default]))

export const webhookDelete = (id: number) =>
  Effect.gen(function* () {
    const endpoints = yield* WebhookEndpoints
    const deleted = yield* foundById(
      id,
      (id) => endpoints.removeAny(WebhookEndpointId.make(id)),
      `no webhook endpoint has id ${id}`
    )
    return {
      text: [`Webhook endpoint ${deleted.id} (${deleted.url}) is deleted, with its deliveries.`],
      json: { id: deleted.id, url: deleted.url, deleted: true }
    } satisfies Result
  }).pipe(Effect.provide(WebhookEndpoints.Default))
