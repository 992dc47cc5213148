import { Schema } from "effect"
import { atMostMessage } from "./Bounds.js"
import { Timestamp } from "./Dates.js"
import { EventType, eventTypes } from "./Event.js"
import { noNul } from "./Text.js"

export const WebhookEndpointId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type
export const WebhookDeliveryId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

/** The longest address an endpoint may have, as browsers and most servers accept it. */
export const MAX_WEBHOOK_URL = 2048

/** The most endpoints an account may have: each event is posted to each of them. */
export const MAX_WEBHOOK_ENDPOINTS = 20

/** The type of the message "Send a test event" sends: not an event of the account, only a check of the receiver. */
export const TEST_MESSAGE_TYPE = "webhook.test"

const endpointIdField = WebhookEndpointId.annotations({ description: "The endpoint's id." })
const urlField = Schema.String.annotations({ description: "The https address deliveries are posted to." })
const eventsField = Schema.Array(EventType).annotations({ description: "The event types posted to the endpoint." })

/** A webhook endpoint as it is listed: never its secret. */
export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("WebhookEndpoint")({
  id: endpointIdField,
  url: urlField,
  events: eventsField,
  enabled: Schema.Boolean.annotations({ description: "Whether events are posted to it." }),
  disabled_reason: Schema.NullOr(Schema.String).annotations({
    description:
      "Why the service disabled it (410 Gone, or three days of failures); null when enabled or disabled by a person."
  }),
  failing_since: Schema.NullOr(Timestamp).annotations({
    description: "The first failed delivery since the last success, RFC 3339 UTC; null when none has failed since."
  }),
  created_at: Timestamp.annotations({ description: "When it was created, RFC 3339 UTC." })
}) {}

/** A new endpoint, or one whose secret was rotated: the one time its secret is shown. */
export const WebhookEndpointWithSecret = Schema.Struct({
  id: endpointIdField,
  url: urlField,
  events: eventsField,
  secret: Schema.String.annotations({
    description:
      "The signing secret (Standard Webhooks, whsec_ and the base64 of 32 random bytes), shown only this once."
  })
})
export type WebhookEndpointWithSecret = typeof WebhookEndpointWithSecret.Type

const urlOf = (text: string) => (URL.canParse(text) ? new URL(text) : undefined)

/**
 * The address of a new endpoint, as far as its text goes: at most MAX_WEBHOOK_URL characters, an http(s) URL, no
 * user name or password in it. Whether http is allowed and where its host leads are the service's to check.
 */
const WebhookUrl = noNul(Schema.String).pipe(
  Schema.filter((text) => text.trim() !== "", { message: () => "is missing: give the https:// address to post to" }),
  Schema.filter((text) => text.length <= MAX_WEBHOOK_URL, {
    message: () => `${atMostMessage(MAX_WEBHOOK_URL, "characters")}: give a shorter address`
  }),
  Schema.filter((text) => urlOf(text) !== undefined, {
    message: () => "is not a URL: give a full address such as https://example.com/webhooks"
  }),
  Schema.filter((text) => ["https:", "http:"].includes(urlOf(text)?.protocol ?? ""), {
    message: () => "must start with https://"
  }),
  Schema.filter(
    (text) => {
      const url = urlOf(text)
      return url?.username === "" && url.password === ""
    },
    { message: () => "must not hold a user name or password (user:password@): verify deliveries by their signature" }
  )
)

const WebhookEvents = Schema.Array(
  Schema.String.pipe(
    Schema.filter((type) => (eventTypes as ReadonlyArray<string>).includes(type), {
      message: (issue) => `${String(issue.actual)} is not an event type: choose among ${eventTypes.join(", ")}`
    })
  )
).pipe(
  Schema.filter((types) => types.length > 0, {
    message: () => `none is chosen: choose at least one of ${eventTypes.join(", ")}`
  })
)

/** What a new endpoint is created with, whichever door creates it (the connection page, `cbs webhook create`). */
export const NewWebhookEndpoint = Schema.Struct({ url: WebhookUrl, events: WebhookEvents })

/** One attempt of a delivery, as the endpoint's delivery log shows it. */
export const WebhookAttempt = Schema.Struct({
  id: Schema.Number,
  delivery_id: WebhookDeliveryId,
  attempted_at: Timestamp,
  /** The answer's HTTP status; null when no answer came (then `error` says why). */
  status: Schema.NullOr(Schema.Number),
  duration_ms: Schema.Number,
  /** The first 1 KiB of the answer's body. */
  response: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  /** The message's type: an event type, or webhook.test. */
  type: Schema.String,
  /** The message's id (`webhook-id`): the event's id, or msg_test_… for a test event. */
  message_id: Schema.String,
  /** The delivery's state now: pending, succeeded or failed. */
  state: Schema.String,
  /** Whether this is the delivery's latest attempt (the one a resend follows). */
  latest: Schema.Boolean
})
export type WebhookAttempt = typeof WebhookAttempt.Type

/** A delivery waiting for its next attempt. */
export const PendingDelivery = Schema.Struct({
  id: WebhookDeliveryId,
  type: Schema.String,
  message_id: Schema.String,
  attempts: Schema.Number,
  next_attempt_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
export type PendingDelivery = typeof PendingDelivery.Type
