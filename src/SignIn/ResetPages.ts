import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../Auth/Passwords.js"
import { html, page, userText } from "../Ui/Html.js"

const backToSignIn = html`<p class="aside"><a href="/signin">Back to sign in</a></p>`

const alert = (message: string | undefined, id: string) =>
  message === undefined ? null : html`<p class="error" role="alert" id="${id}">${message}</p>`

/** "Forgot your password?": the e-mail to send a reset link to. `csrf` is the pre-session's token, as at sign-in. */
export const forgotPage = (options: {
  readonly csrf: string
  readonly minutes: number
  readonly email?: string
  readonly message?: string
}) =>
  page(
    "Forgot your password?",
    html`<h1>Forgot your password?</h1>
<p>Enter the e-mail address of your account. We will send it a link to choose a new password; the link works once,
within ${String(options.minutes)} minutes.</p>
${alert(options.message, "forgot-error")}
<form method="post" action="/signin/forgot">
<input type="hidden" name="csrf" value="${options.csrf}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="320"
  value="${options.email ?? ""}"${options.message === undefined ? null : html` aria-describedby="forgot-error"`}>
<div class="actions"><button type="submit" class="primary">Send the link</button></div>
</form>
${backToSignIn}`
  )

/** What "Forgot your password?" says when the service has no way to send mail: who can help, and with what. */
export const noMailPage = () =>
  page(
    "Forgot your password?",
    html`<h1>Forgot your password?</h1>
<p>This service does not send e-mail, so it cannot send you a reset link. Ask the person who runs it to set a new
password for you; they can do it with the command</p>
<pre class="wrap"><code>cbs account password --email you@example.com</code></pre>
<p>(with your e-mail address), which reads the new password from its standard input.</p>
${backToSignIn}`
  )

/** After a reset link was asked for: the same words whether or not the e-mail is an account's. */
export const sentPage = (options: { readonly minutes: number }) =>
  page(
    "Check your e-mail",
    html`<h1>Check your e-mail</h1>
<p role="status">If an account has that e-mail address, a link to choose a new password is on its way. It works
once, within ${String(options.minutes)} minutes.</p>
<p>No mail after a few minutes? Look in the spam folder, or <a href="/signin/forgot">ask for another link</a>.</p>
${backToSignIn}`
  )

/** The reset link's page: a new password, twice, for the link's user. */
export const newPasswordPage = (options: {
  readonly csrf: string
  readonly token: string
  readonly email: string
  readonly message?: string
}) =>
  page(
    "Choose a new password",
    html`<h1>Choose a new password</h1>
<p>For <strong>${userText(options.email)}</strong>. Setting it signs this account out of every browser.</p>
${alert(options.message, "reset-error")}
<form method="post" action="/signin/reset">
<input type="hidden" name="csrf" value="${options.csrf}">
<input type="hidden" name="token" value="${options.token}">
<input type="email" name="username" autocomplete="username" value="${options.email}" hidden>
<label for="password">New password</label>
<p class="muted" id="password-rule">At least ${String(MIN_PASSWORD_LENGTH)} characters.</p>
<input id="password" name="password" type="password" autocomplete="new-password" required
  minlength="${String(MIN_PASSWORD_LENGTH)}" maxlength="${String(MAX_PASSWORD_LENGTH)}" aria-describedby="password-rule${options.message === undefined ? "" : " reset-error"}">
<label for="repeat">Repeat the new password</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" required
  minlength="${String(MIN_PASSWORD_LENGTH)}" maxlength="${String(MAX_PASSWORD_LENGTH)}">
<div class="actions"><button type="submit" class="primary">Set the new password</button></div>
</form>`
  )

const REFUSALS = {
  unknown: "This reset link is not one of ours, or not all of it was copied. Copy the whole link from the mail.",
  expired: "This reset link has expired: a link works for a short while only.",
  used: "This reset link has been used already: a link sets a password once."
} as const

/** A reset link that does not work: why, and the way to a new one. */
export const refusedLinkPage = (reason: keyof typeof REFUSALS) =>
  page(
    "This link does not work",
    html`<h1>This link does not work</h1>
<p class="error" role="alert">${REFUSALS[reason]}</p>
<div class="actions next"><a href="/signin/forgot">Ask for a new link</a></div>
${backToSignIn}`
  )
