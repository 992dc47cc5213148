import { eventTypes } from "../Domain/Event.js"
import { MAX_WEBHOOK_URL, type WebhookEndpoint, type WebhookEndpointWithSecret } from "../Domain/Webhook.js"
import { copyScriptSrc } from "../Ui/Assets.js"
import { html, type SafeHtml, userText } from "../Ui/Html.js"
import { confirmPage, copyable, csrfField } from "./ConnectionParts.js"
import { layout, stackedTable, timestamp, type Viewer } from "./Layout.js"

/** What the create form shows again after a refusal: what was typed and chosen, and why it was refused. */
export interface WebhookForm {
  readonly error: string
  readonly url: string
  readonly events: ReadonlyArray<string>
}

export const eventList = (events: ReadonlyArray<string>) =>
  html`<span class="event-types">${events.map((type, i) => html`${i > 0 ? html`<br>` : null}<code>${type}</code>`)}</span>`

/** Enabled, or disabled and why; and since when deliveries fail, if they do. */
export const stateOf = (endpoint: WebhookEndpoint) => {
  const state = endpoint.enabled
    ? html`<span class="badge ok">Enabled</span>`
    : html`<span class="badge failed">Disabled</span>${
        endpoint.disabled_reason === null
          ? html` <span class="muted">by a person</span>`
          : html`<span class="why">${userText(endpoint.disabled_reason)}</span>`
      }`
  return endpoint.failing_since === null
    ? state
    : html`${state}<span class="why">Failing since ${timestamp(endpoint.failing_since)}</span>`
}

/** What a screen reader hears after an action's name, so that the same button in each row is told apart. */
const which = (endpoint: WebhookEndpoint) =>
  html`<span class="visually-hidden"> endpoint ${endpoint.id}, ${userText(endpoint.url)}</span>`

/** A button in its own small form (CSRF included), named for the endpoint it acts on. */
const rowButton = (viewer: Viewer, endpoint: WebhookEndpoint, action: string, label: SafeHtml | string) =>
  html`<form method="post" action="/connection/webhooks/${endpoint.id}/${action}" class="row-action">
${csrfField(viewer)}
<button type="submit" class="small">${label}${which(endpoint)}</button>
</form>`

const endpointCells = (viewer: Viewer, endpoint: WebhookEndpoint) =>
  [
    html`<code>${userText(endpoint.url)}</code><span class="address muted">endpoint ${endpoint.id}</span>`,
    eventList(endpoint.events),
    stateOf(endpoint),
    timestamp(endpoint.created_at),
    html`<div class="row-actions">
<a class="button small" href="/connection/webhooks/${endpoint.id}/deliveries">Deliveries<span class="visually-hidden"> to</span>${which(endpoint)}</a>
${rowButton(viewer, endpoint, "rotate", html`Rotate secret<span class="visually-hidden"> of</span>`)}
${endpoint.enabled ? rowButton(viewer, endpoint, "disable", "Disable") : rowButton(viewer, endpoint, "enable", "Enable")}
<a class="button small" href="/connection/webhooks/${endpoint.id}/delete">Delete${which(endpoint)}</a>
</div>`
  ] as const

/** How deliveries are made, in the contract's words, so that a receiver can be written from the page. */
const howDeliveriesWork = html`<p>A webhook endpoint is an https address of yours that the service posts events to as
they happen: <code>article.changed</code> (every saved change), <code>article.published</code>,
<code>backlink.acquired</code> and <code>backlink.status_changed</code>. Each event has an <code>id</code>
(<code>evt_…</code>, increasing), a <code>type</code>, <code>created_at</code> and <code>data</code>.</p>
<details class="help">
<summary>How deliveries are made and verified</summary>
<ul>
<li>Deliveries follow the <a href="https://www.standardwebhooks.com/" rel="noopener noreferrer">Standard Webhooks</a>
specification: a JSON POST with the headers <code>webhook-id</code>, <code>webhook-timestamp</code> and
<code>webhook-signature</code> (<code>v1,</code> and a base64 HMAC-SHA256 made with the endpoint's secret), so any
Standard Webhooks library verifies them with the secret (<code>whsec_…</code>) shown when the endpoint is created.</li>
<li>An answer with a 2xx status within 10 seconds is a success. Anything else is retried after about 5 s, 5 min,
30 min, 2 h, 5 h, 10 h and 10 h, then daily until 3 days have passed. Redirects are not followed.</li>
<li>A <code>410 Gone</code> answer disables the endpoint at once; an endpoint that has failed for 3 days is disabled,
and this page says so. Enable it again once it answers.</li>
<li>Delivery is at least once: dedupe on <code>webhook-id</code>. Order is not guaranteed: events carry
<code>created_at</code> and increasing ids.</li>
<li>Rotating a secret shows a new one once; the previous one keeps signing for 24 hours beside it (both signatures
are sent), so that the receiver can change over.</li>
</ul>
</details>`

const ENDPOINT_COLUMNS = [
  { label: "Address" },
  { label: "Events" },
  { label: "State" },
  { label: "Created" },
  { label: "Actions" }
]

const createForm = (viewer: Viewer, form: WebhookForm | undefined) => {
  const chosen = (type: string) => form === undefined || form.events.includes(type)
  return html`<h3>Add an endpoint</h3>
${form === undefined ? null : html`<p class="error" role="alert" id="webhook-error">${form.error}</p>`}
<form method="post" action="/connection/webhooks">
${csrfField(viewer)}
<label for="webhook-url">Endpoint URL</label>
<input id="webhook-url" name="url" type="url" required maxlength="${MAX_WEBHOOK_URL}" autocomplete="off"
  spellcheck="false" placeholder="https://example.com/webhooks" value="${form?.url ?? ""}"
  aria-describedby="webhook-url-help${form === undefined ? "" : " webhook-error"}">
<p id="webhook-url-help" class="muted">An https address on the public internet, without a user name or password.</p>
<fieldset class="access">
<legend>Events to send</legend>
${eventTypes.map(
  (type) => html`<div class="choice"><input type="checkbox" id="webhook-event-${type.replace(".", "-")}" name="events"
  value="${type}"${chosen(type) ? html` checked` : null}>
<label for="webhook-event-${type.replace(".", "-")}"><code>${type}</code></label></div>`
)}
</fieldset>
<button type="submit" class="primary">Add endpoint</button>
</form>`
}

/** The connection page's webhooks: the endpoints with their state and actions, and the form that adds one. */
export const webhooksSection = (
  viewer: Viewer,
  endpoints: ReadonlyArray<WebhookEndpoint>,
  form: WebhookForm | undefined
) => html`
<h2 id="webhooks">Webhooks</h2>
${howDeliveriesWork}
${
  endpoints.length === 0
    ? html`<p>You have no webhook endpoints yet.</p>`
    : stackedTable({
        caption: "Your webhook endpoints",
        columns: ENDPOINT_COLUMNS,
        rows: endpoints.map((endpoint) => endpointCells(viewer, endpoint))
      })
}
${createForm(viewer, form)}`

/** The notices of the connection page after a webhook form. */
export const webhookNotices: Record<string, string> = {
  "webhook-disabled": "The webhook endpoint was disabled. Nothing is posted to it until you enable it.",
  "webhook-enabled": "The webhook endpoint was enabled. New events are posted to it again.",
  "webhook-deleted": "The webhook endpoint was deleted, with its deliveries."
}

/** The answer to creating an endpoint or rotating its secret: the secret itself, this once. */
export const webhookSecretPage = (viewer: Viewer, endpoint: WebhookEndpointWithSecret, rotated: boolean): string =>
  layout({
    title: rotated ? "New webhook secret" : "New webhook endpoint",
    viewer,
    section: "connection",
    scripts: [copyScriptSrc],
    main: html`<h1>${rotated ? "The endpoint's new secret" : "Your new webhook endpoint"}</h1>
<p class="warning" role="alert"><strong>Copy the secret now: it will not be shown again.</strong> ${
      rotated
        ? "The previous secret keeps signing deliveries for 24 hours beside this one, so update your receiver within a day."
        : "Your receiver verifies each delivery's signature with it. If you lose it, rotate the secret to get a new one."
    }</p>
<dl class="meta"><dt>Endpoint</dt><dd>${endpoint.id}</dd><dt>Address</dt><dd><code>${userText(endpoint.url)}</code></dd>
<dt>Events</dt><dd>${eventList(endpoint.events)}</dd></dl>
${copyable("webhook-secret", "Signing secret", endpoint.secret)}
<p><a href="/connection#webhooks">Back to site connection</a></p>`
  })

/** `GET /connection/webhooks/:id/delete`: what deleting the endpoint means, and the button that does it. */
export const deleteWebhookPage = (viewer: Viewer, endpoint: WebhookEndpoint) =>
  confirmPage({
    viewer,
    title: `Delete the webhook endpoint ${endpoint.url}?`,
    heading: html`Delete the webhook endpoint <code>${userText(endpoint.url)}</code>?`,
    explanation: html`<p>Nothing more is posted to this address, and its deliveries and their log are deleted with
it. This cannot be undone: to receive events there again, add the endpoint again (it gets a new secret). To stop
deliveries for a while, disable it instead.</p>
<dl class="meta"><dt>Events</dt><dd>${eventList(endpoint.events)}</dd><dt>Created</dt><dd>${timestamp(endpoint.created_at)}</dd></dl>`,
    action: `/connection/webhooks/${endpoint.id}/delete`,
    button: "Delete endpoint",
    cancel: "/connection#webhooks"
  })
