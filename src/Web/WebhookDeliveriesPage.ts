import type { PageMeta } from "../Domain/Pagination.js"
import {
  type PendingDelivery,
  TEST_MESSAGE_TYPE,
  type WebhookAttempt,
  type WebhookEndpoint
} from "../Domain/Webhook.js"
import { html, userText } from "../Ui/Html.js"
import { csrfField } from "./ConnectionParts.js"
import { layout, none, pager, stackedTable, timestamp, type Viewer } from "./Layout.js"
import { eventList, stateOf } from "./WebhookPages.js"

/** What a delivery's message is: its type and its id (`webhook-id`). */
const messageOf = (delivery: { readonly type: string; readonly message_id: string }) =>
  html`<span class="event-types"><code>${delivery.type}</code></span><span class="address muted">${delivery.message_id}</span>`

/** The answer's status, or what went wrong in words when none came. */
const resultOf = (attempt: WebhookAttempt) =>
  attempt.status === null
    ? html`<span class="badge failed">No answer</span><span class="why">${userText(attempt.error ?? "unknown error")}</span>`
    : html`<span class="badge ${attempt.status >= 200 && attempt.status < 300 ? "ok" : "failed"}">HTTP ${attempt.status}</span>${
        attempt.error === null ? null : html`<span class="why">${userText(attempt.error)}</span>`
      }`

const answerOf = (attempt: WebhookAttempt) =>
  attempt.response === null || attempt.response === ""
    ? none
    : html`<details class="answer"><summary>Answer<span class="visually-hidden"> of attempt ${attempt.id}</span></summary>
<pre class="wrap">${attempt.response}</pre></details>`

const resendForm = (viewer: Viewer, endpointId: number, attempt: WebhookAttempt) =>
  attempt.latest
    ? html`<form method="post" action="/connection/webhooks/${endpointId}/deliveries/${attempt.delivery_id}/resend" class="row-action">
${csrfField(viewer)}
<button type="submit" class="small">Resend<span class="visually-hidden"> ${attempt.message_id}</span></button>
</form>`
    : html`<span class="muted">Resent or retried later</span>`

const attemptsTable = (viewer: Viewer, endpointId: number, attempts: ReadonlyArray<WebhookAttempt>) =>
  stackedTable({
    caption: "Delivery attempts of the last 30 days",
    columns: [
      { label: "Time" },
      { label: "Message" },
      { label: "Result" },
      { label: "Took", num: true },
      { label: "Answer" },
      { label: "Action" }
    ],
    rows: attempts.map(
      (attempt) =>
        [
          timestamp(attempt.attempted_at),
          messageOf(attempt),
          resultOf(attempt),
          // A no-break space: the number and its unit stay on one line.
          `${attempt.duration_ms}\u00a0ms`,
          answerOf(attempt),
          resendForm(viewer, endpointId, attempt)
        ] as const
    )
  })

const pendingTable = (pending: ReadonlyArray<PendingDelivery>) =>
  stackedTable({
    caption: "Deliveries waiting to be sent",
    columns: [
      { label: "Message" },
      { label: "Queued" },
      { label: "Attempts so far", num: true },
      { label: "Next attempt" }
    ],
    rows: pending.map(
      (delivery) =>
        [
          messageOf(delivery),
          timestamp(delivery.created_at),
          delivery.attempts,
          delivery.next_attempt_at === null ? html`As soon as possible` : timestamp(delivery.next_attempt_at)
        ] as const
    )
  })

const deliveryNotices: Record<string, string> = {
  resent: "The delivery was queued again. It is sent within a few seconds; reload this page to see the attempt.",
  "test-sent": "A test event was queued. It is sent within a few seconds; reload this page to see the attempt."
}

/** `GET /connection/webhooks/:id/deliveries`: the endpoint's attempts, the deliveries waiting, resend and test. */
export const deliveriesPage = (
  viewer: Viewer,
  log: {
    readonly endpoint: WebhookEndpoint
    readonly attempts: ReadonlyArray<WebhookAttempt>
    readonly meta: PageMeta
    readonly pending: ReadonlyArray<PendingDelivery>
  },
  options: { readonly notice?: string | null; readonly error?: string } = {}
) => {
  const { endpoint } = log
  const notice = options.notice === undefined || options.notice === null ? undefined : deliveryNotices[options.notice]
  return layout({
    title: `Deliveries to ${endpoint.url}`,
    viewer,
    section: "connection",
    main: html`<p class="breadcrumb"><a href="/connection#webhooks">Back to site connection</a></p>
<h1>Deliveries to <code>${userText(endpoint.url)}</code></h1>
${notice === undefined ? null : html`<p class="notice" role="status">${notice}</p>`}
${options.error === undefined ? null : html`<p class="error" role="alert">${options.error}</p>`}
<dl class="meta"><dt>Endpoint</dt><dd>${endpoint.id}</dd><dt>State</dt><dd>${stateOf(endpoint)}</dd>
<dt>Events</dt><dd>${eventList(endpoint.events)}</dd></dl>
<h2 id="test">Send a test event</h2>
<p>A test event is a message of type <code>${TEST_MESSAGE_TYPE}</code> whose <code>data</code> holds this endpoint's
id (<code>{ "endpoint_id": ${endpoint.id} }</code>), signed and sent like any event. It is not an event of your
account: use it to check that your receiver answers with a 2xx and verifies the signature.</p>
<form method="post" action="/connection/webhooks/${endpoint.id}/test">
${csrfField(viewer)}
<button type="submit" class="primary"${endpoint.enabled ? null : html` disabled aria-describedby="test-disabled"`}>Send a test event</button>
${endpoint.enabled ? null : html`<p id="test-disabled" class="muted">The endpoint is disabled: enable it on the site connection page first.</p>`}
</form>
${
  log.pending.length === 0
    ? null
    : html`<h2 id="pending">Waiting to be sent</h2>
${pendingTable(log.pending)}`
}
<h2 id="attempts">Attempts of the last 30 days</h2>
${
  log.attempts.length === 0
    ? html`<p>No delivery has been attempted in the last 30 days.</p>`
    : html`<p class="muted">Newest first. Each attempt shows the answer's status, or what went wrong when no answer came,
how long it took, and the first 1 KiB of the answer.</p>
${attemptsTable(viewer, endpoint.id, log.attempts)}`
}
${pager("Pages of delivery attempts", log.meta, (page) => `/connection/webhooks/${endpoint.id}/deliveries?page=${page}#attempts`)}`
  })
}
