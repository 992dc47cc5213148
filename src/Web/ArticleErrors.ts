import { DisallowedHtml, EditLimitExceeded, ProtectedLinkViolation, ValidationError } from "../Domain/Errors.js"
import { html, type SafeHtml } from "../Ui/Html.js"

const messageOf = (error: unknown) =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : "Something went wrong on our side."

/** A refused change in plain words, with the protected links concerned when there are some. */
export const explain = (error: unknown): SafeHtml => {
  if (error instanceof ProtectedLinkViolation) {
    return html`<p>This change would remove or alter these protected links (they must be kept exactly, though they may move, and none may be added):</p>
<ul>${error.protected_links.map((link) => html`<li>${link.type}: “${link.text}” → <code>${link.href}</code></li>`)}</ul>`
  }
  if (error instanceof DisallowedHtml) return html`<p>The HTML was refused. ${error.message}</p>`
  if (error instanceof EditLimitExceeded) {
    return html`<p>Your account has reached its daily limit of ${error.limit} article changes. Try again after midnight UTC.</p>`
  }
  if (error instanceof ValidationError) return html`<p>Please correct this: ${error.message}</p>`
  return html`<p>${messageOf(error)}</p>`
}
