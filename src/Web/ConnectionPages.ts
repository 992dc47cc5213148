import { MAX_KEY_NAME } from "../Auth/ApiKeys.js"
import type { ApiKeyRow } from "../Domain/ApiKey.js"
import type { WebhookEndpoint } from "../Domain/Webhook.js"
import { allowsWrite } from "../OAuth/Scopes.js"
import { copyScriptSrc } from "../Ui/Assets.js"
import { html, userText, userTextOr } from "../Ui/Html.js"
import type { AssistantRow } from "./AssistantsRepo.js"
import { confirmPage, copyable, csrfField } from "./ConnectionParts.js"
import { layout, none, stackedTable, timestamp, type Viewer } from "./Layout.js"
import { type WebhookForm, webhookNotices, webhooksSection } from "./WebhookPages.js"

/** What the connection page shows. */
export interface Connection {
  readonly keys: ReadonlyArray<ApiKeyRow>
  readonly assistants: ReadonlyArray<AssistantRow>
  readonly webhooks: ReadonlyArray<WebhookEndpoint>
  readonly mcpUrl: string
  /** The time the page is shown (ms since the epoch): keys revoked long before it are folded away. */
  readonly now: number
}

/** Days a revoked key stays in the keys' table; older ones are folded away under a count (still listed, on request). */
export const REVOKED_KEYS_SHOWN_DAYS = 30

/** The keys in use or revoked within REVOKED_KEYS_SHOWN_DAYS, and those revoked before. */
const byRevocation = (keys: ReadonlyArray<ApiKeyRow>, now: number) => {
  const since = now - REVOKED_KEYS_SHOWN_DAYS * 86_400_000
  const old = (key: ApiKeyRow) => key.revoked_at !== null && Date.parse(key.revoked_at) < since
  return { recent: keys.filter((key) => !old(key)), old: keys.filter(old) }
}

const keyCells = (key: ApiKeyRow) =>
  [
    html`${userText(key.name)}${key.is_admin ? html` <span class="muted">(admin)</span>` : null}`,
    key.read_only ? "Read only" : "Read and edit",
    html`<code>${key.prefix}…</code>`,
    timestamp(key.created_at),
    timestamp(key.last_used_at),
    key.revoked_at === null ? html`<span class="badge ok">Active</span>` : html`Revoked ${timestamp(key.revoked_at)}`,
    key.revoked_at === null
      ? html`<a class="button small" href="/connection/keys/${key.id}/revoke">Revoke<span class="visually-hidden"> key ${userText(key.name)}</span></a>`
      : none
  ] as const

const KEY_COLUMNS = [
  { label: "Name" },
  { label: "May" },
  { label: "Key starts with" },
  { label: "Created" },
  { label: "Last used" },
  { label: "Status" },
  { label: "Action" }
]

/**
 * The keys' table: the keys in use and those revoked in the last REVOKED_KEYS_SHOWN_DAYS days; keys revoked before
 * are counted under it and listed only when that is opened, so that years of old keys do not bury the ones in use.
 */
const keysTable = (keys: ReadonlyArray<ApiKeyRow>, now: number) => {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`
  const { recent, old } = byRevocation(keys, now)
  const count = `${old.length} key${old.length === 1 ? "" : "s"} revoked more than ${REVOKED_KEYS_SHOWN_DAYS} days ago`
  return html`${
    recent.length === 0
      ? html`<p>You have no keys in use.</p>`
      : stackedTable({ caption: "Your API keys", columns: KEY_COLUMNS, rows: recent.map(keyCells) })
  }
${
  old.length === 0
    ? null
    : html`<details class="old-keys">
<summary>${count}</summary>
${stackedTable({ caption: count, columns: KEY_COLUMNS, rows: old.map(keyCells) })}
</details>`
}`
}

const keysSection = (viewer: Viewer, keys: ReadonlyArray<ApiKeyRow>, now: number, error: string | undefined) => html`
<h2 id="keys">API keys</h2>
<p>An API key lets a program use the API (<code>/api/v1</code>) for your account. Send it in the
<code>Authorization: Bearer …</code> header (or <code>X-API-Key</code>). Revoke a key you no longer use.</p>
${keysTable(keys, now)}
<h3>Create a key</h3>
${error === undefined ? null : html`<p class="error" role="alert" id="key-error">${error}</p>`}
<form method="post" action="/connection/keys">
${csrfField(viewer)}
<label for="key-name">Key name</label>
<input id="key-name" name="name" type="text" required maxlength="${MAX_KEY_NAME}" autocomplete="off"
  aria-describedby="key-name-help${error === undefined ? "" : " key-error"}">
<p id="key-name-help" class="muted">For example the program or person that will use it.</p>
<div class="choice"><input type="checkbox" id="key-read-only" name="read_only" value="1">
<label for="key-read-only">Read only: the key can read your websites, articles, backlinks and statistics, but not
change articles</label></div>
<button type="submit" class="primary">Create key</button>
</form>`

const mcpSection = (mcpUrl: string) => html`
<h2 id="assistant">Connect an assistant</h2>
<p>AI assistants connect through MCP. Give your assistant this address; it then opens a page of this site where you
sign in and choose Allow.</p>
${copyable("mcp-url", "MCP address", mcpUrl)}
${
  new URL(mcpUrl).protocol === "https:"
    ? null
    : html`<p class="notice">This address works for assistants on this computer (Claude Desktop, Cursor, VS Code,
<code>mcp-remote</code>). Assistants that run in the cloud, such as claude.ai and ChatGPT, cannot reach it: they need
a public <strong>https</strong> address, which the service takes from <code>PUBLIC_BASE_URL</code>.</p>`
}
<ul>
<li><strong>Claude</strong>: Settings → Connectors → Add custom connector; paste the address, then Connect.</li>
<li><strong>ChatGPT</strong>: Settings → Apps &amp; Connectors → Advanced settings → turn on developer mode; then
Create, paste the address, choose OAuth.</li>
<li><strong>Cursor</strong>: Settings → MCP → Add new MCP server; or in <code>mcp.json</code>:
<pre class="wrap">{ "mcpServers": { "content-backlinks": { "url": "${mcpUrl}" } } }</pre></li>
<li><strong>VS Code</strong>: run “MCP: Add Server…”, choose HTTP and paste the address; or in
<code>.vscode/mcp.json</code>:
<pre class="wrap">{ "servers": { "content-backlinks": { "type": "http", "url": "${mcpUrl}" } } }</pre></li>
</ul>`

/** The name an assistant gave itself, isolated and with any control character made visible. */
const assistantName = (assistant: AssistantRow) => userTextOr(assistant.client_name, "Unnamed assistant")

const returnAddresses = (assistant: AssistantRow) =>
  html`${assistant.redirect_uris.map((uri, i) => html`${i > 0 ? html`<br>` : null}<code>${uri}</code>`)}`

/** What an assistant may do, and a form to change it (every token of the assistant follows at once). */
const accessForm = (viewer: Viewer, assistant: AssistantRow) => {
  const canEdit = allowsWrite(assistant.scopes)
  const id = `access-${encodeURIComponent(assistant.client_id).replace(/[^A-Za-z0-9-]/g, "")}`
  return html`<form method="post" action="/connection/assistants/${encodeURIComponent(assistant.client_id)}/access" class="access-form">
${csrfField(viewer)}
<label for="${id}" class="visually-hidden">What ${assistantName(assistant)} may do</label>
<select id="${id}" name="access">
<option value="read"${canEdit ? null : html` selected`}>Read only</option>
<option value="edit"${canEdit ? html` selected` : null}>Read and edit</option>
</select>
<button type="submit" class="small">Change<span class="visually-hidden"> for ${assistantName(assistant)}</span></button>
</form>`
}

const assistantsSection = (viewer: Viewer, assistants: ReadonlyArray<AssistantRow>) => html`
<h2 id="assistants">Connected assistants</h2>
<p>Each assistant named itself when it registered; its return address and its client id tell apart assistants that
chose the same name.</p>
${
  assistants.length === 0
    ? html`<p>No assistant is connected to your account.</p>`
    : stackedTable({
        caption: "Assistants that can use your account",
        columns: [
          { label: "Assistant" },
          { label: "Returns to" },
          { label: "May" },
          { label: "Connected" },
          { label: "Last used" },
          { label: "Action" }
        ],
        rows: assistants.map(
          (assistant) =>
            [
              html`${assistantName(assistant)}<span class="address muted">client id <code>${assistant.client_id}</code></span>`,
              returnAddresses(assistant),
              accessForm(viewer, assistant),
              timestamp(assistant.connected_at),
              timestamp(assistant.last_used_at),
              html`<a class="button small" href="/connection/assistants/${encodeURIComponent(assistant.client_id)}/revoke">Disconnect<span class="visually-hidden"> ${assistantName(assistant)}, client id ${assistant.client_id}</span></a>`
            ] as const
        )
      })
}`

const notices: Record<string, string> = {
  "key-revoked": "The key was revoked. Requests with it are now refused.",
  "assistant-disconnected": "The assistant was disconnected. It can no longer use your account.",
  "assistant-read": "The assistant may now only read. Its next change is refused until you allow editing again.",
  "assistant-edit": "The assistant may now read and edit articles.",
  ...webhookNotices
}

/** `GET /connection`: API keys, the MCP address with instructions, the connected assistants, and webhooks. */
export const connectionPage = (
  viewer: Viewer,
  connection: Connection,
  options: { readonly notice?: string | null; readonly error?: string; readonly webhook?: WebhookForm } = {}
) => {
  const notice = options.notice === undefined || options.notice === null ? undefined : notices[options.notice]
  return layout({
    title: "Site connection",
    viewer,
    section: "connection",
    scripts: [copyScriptSrc],
    main: html`<h1>Site connection</h1>
${notice === undefined ? null : html`<p class="notice" role="status">${notice}</p>`}
${keysSection(viewer, connection.keys, connection.now, options.error)}
${mcpSection(connection.mcpUrl)}
${assistantsSection(viewer, connection.assistants)}
${webhooksSection(viewer, connection.webhooks, options.webhook)}`
  })
}

/** The answer to creating a key: the key itself, this once. */
export const keyCreatedPage = (viewer: Viewer, name: string, key: string): string =>
  layout({
    title: "New API key",
    viewer,
    section: "connection",
    scripts: [copyScriptSrc],
    main: html`<h1>Your new API key “${userText(name)}”</h1>
<p class="warning" role="alert"><strong>Copy the key now: it will not be shown again.</strong> Only a fingerprint of
it is kept, so if you lose it, revoke it and create another.</p>
${copyable("new-key", "API key", key)}
<p><a href="/connection">Back to site connection</a></p>`
  })

/** `GET /connection/keys/:id/revoke`: what revoking the key means, and the button that does it. */
export const revokeKeyPage = (viewer: Viewer, key: ApiKeyRow) =>
  confirmPage({
    viewer,
    title: `Revoke the key “${key.name}”?`,
    heading: html`Revoke the key “${userText(key.name)}”?`,
    explanation: html`<p>Programs that use the key starting with <code>${key.prefix}…</code> will be refused from
the moment you revoke it. This cannot be undone: to let a program in again, create a new key.</p>
<dl class="meta"><dt>Created</dt><dd>${timestamp(key.created_at)}</dd><dt>Last used</dt><dd>${timestamp(key.last_used_at)}</dd></dl>`,
    action: `/connection/keys/${key.id}/revoke`,
    button: "Revoke key",
    cancel: "/connection#keys"
  })

/** `GET /connection/assistants/:clientId/revoke`: what disconnecting means, and the button that does it. */
export const disconnectAssistantPage = (viewer: Viewer, assistant: AssistantRow) =>
  confirmPage({
    viewer,
    title: `Disconnect ${assistant.client_name ?? "Unnamed assistant"}?`,
    heading: html`Disconnect ${assistantName(assistant)}?`,
    explanation: html`<p>The assistant loses its access to your account at once. To use it again, connect it again
from the assistant, and sign in and Allow.</p>
<dl class="meta"><dt>Client id</dt><dd><code>${assistant.client_id}</code></dd>
<dt>Returns to</dt><dd>${returnAddresses(assistant)}</dd>
<dt>Connected</dt><dd>${timestamp(assistant.connected_at)}</dd><dt>Last used</dt><dd>${timestamp(assistant.last_used_at)}</dd></dl>`,
    action: `/connection/assistants/${encodeURIComponent(assistant.client_id)}/revoke`,
    button: "Disconnect assistant",
    cancel: "/connection#assistants"
  })
