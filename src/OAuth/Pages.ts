import { signOutForm } from "../SignIn/Page.js"
import { html, htmlResponse, page, userText, userTextOr } from "../Ui/Html.js"
import type { AuthorizeRequest } from "./Authorize.js"
import { formActionSource, redirectHost } from "./RedirectUris.js"

/**
 * The consent page: names the application (as it registered itself) and where the answer is sent, with Allow and
 * Deny. The form carries the original request (validated again on POST) and the session's CSRF token. Its CSP lets
 * the form post here and the redirect that follows reach the client, nothing else.
 */
export const consentPage = (options: {
  readonly request: AuthorizeRequest
  readonly email: string
  readonly csrf: string
}) => {
  const { request } = options
  const name = request.client.client_name
  const host = redirectHost(request.redirectUri)
  // A client named by its metadata document's URL is vouched for by that URL's site, which the person should see.
  const documentHost = request.client.client_id.startsWith("https://")
    ? new URL(request.client.client_id).host
    : undefined
  const body = html`<h1>Allow ${userTextOr(name, "this application")} to use your account?</h1>
<p>${
    name === null
      ? html`An application that did not give its name (client id <code>${request.client.client_id}</code>)`
      : html`<strong>${userText(name)}</strong>`
  }${documentHost === undefined ? null : html` (described by <strong>${documentHost}</strong>)`} wants to use this service on your behalf, as <strong>${userText(options.email)}</strong>: read your websites, articles,
backlinks and statistics, and, if you choose so below, edit articles.</p>
<p>If you allow it, you will be sent back to <strong>${host}</strong>.</p>
<p class="muted">The application chose its own name. Allow only if you started this connection yourself.</p>
<form method="post" action="/authorize">
<input type="hidden" name="query" value="${request.query}">
<input type="hidden" name="csrf" value="${options.csrf}">
<fieldset class="access">
<legend>What may it do?</legend>
<div class="choice"><input type="radio" id="access-read" name="access" value="read"${request.requestsWrite ? null : html` checked`}>
<label for="access-read"><strong>Read only</strong>: your websites, articles, backlinks and statistics</label></div>
<div class="choice"><input type="radio" id="access-edit" name="access" value="edit"${request.requestsWrite ? html` checked` : null}>
<label for="access-edit"><strong>Read and edit</strong>: also change articles (each change is kept as a revision you can restore)</label></div>
</fieldset>
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
${signOutForm({
  csrf: options.csrf,
  returnTo: `/authorize?${request.query}`,
  label: `Not ${options.email}? Use another account`
})}`
  return htmlResponse(page("Allow access", body), { formActions: [formActionSource(request.redirectUri)] })
}

/** An authorization request that cannot be answered to the client: shown to the user instead. */
export const authorizeErrorPage = (message: string, status = 400) =>
  htmlResponse(
    page(
      "Cannot connect",
      html`<h1>This connection cannot go ahead</h1>
<p role="alert">${message}</p>
<p class="muted">Close this page and start the connection again from your assistant.</p>`
    ),
    { status }
  )
