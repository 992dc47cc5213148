import { html, page, userText } from "../Ui/Html.js"

/**
 * The sign-in form; `message` explains why the last attempt was refused, `notice` what was just done (a new
 * password set). `csrf` is the pre-session's token: the POST is taken only with it and its cookie.
 */
export const signInPage = (options: {
  readonly csrf: string
  readonly returnTo: string | undefined
  readonly email?: string
  readonly message?: string
  readonly notice?: string
}) =>
  page(
    "Sign in",
    html`<h1>Sign in</h1>
<p>Sign in with the e-mail address and password of your account.</p>
${options.notice === undefined ? null : html`<p class="notice" role="status">${options.notice}</p>`}
${options.message === undefined ? null : html`<p class="error" role="alert" id="signin-error">${options.message}</p>`}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${options.csrf}">
${options.returnTo === undefined ? null : html`<input type="hidden" name="return_to" value="${options.returnTo}">`}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320"
  value="${options.email ?? ""}"${options.message === undefined ? null : html` aria-describedby="signin-error"`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<p class="aside"><a href="/signin/forgot">Forgot your password?</a></p>`
  )

/** What a signed-in user sees at the sign-in address: who they are, the way on to the websites, and a way out. */
export const signedInPage = (options: { readonly email: string; readonly csrf: string }) =>
  page(
    "Signed in",
    html`<h1>Signed in</h1>
<p>You are signed in as <strong>${userText(options.email)}</strong>.</p>
<div class="actions next"><a href="/sites">Go to your websites</a></div>
${signOutForm({ csrf: options.csrf, returnTo: undefined, label: "Sign out" })}`
  )

/** A small form that signs out (POST with the session's CSRF token), then shows the sign-in form. */
export const signOutForm = (options: {
  readonly csrf: string
  readonly returnTo: string | undefined
  readonly label: string
}) =>
  html`<form method="post" action="/signout" class="actions">
<input type="hidden" name="csrf" value="${options.csrf}">
${options.returnTo === undefined ? null : html`<input type="hidden" name="return_to" value="${options.returnTo}">`}
<button type="submit" class="link">${options.label}</button>
</form>`
