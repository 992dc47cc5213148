import { html, type SafeHtml } from "../Ui/Html.js"
import { layout, type Viewer } from "./Layout.js"

/** What the site-connection pages share: the forms' CSRF field, a secret shown once, the confirmation page. */

export const csrfField = (viewer: Viewer) => html`<input type="hidden" name="csrf" value="${viewer.csrf}">`

/** A read-only field with a copy button; the button appears only when the script runs. */
export const copyable = (id: string, label: string, value: string) => html`<label for="${id}">${label}</label>
<div class="inline">
<input id="${id}" class="secret" type="text" value="${value}" readonly spellcheck="false" autocomplete="off">
<button type="button" data-copy="${id}" data-status="${id}-status" hidden>Copy</button>
</div>
<p id="${id}-status" class="muted" role="status" aria-live="polite"></p>`

/** A page that asks before something that cannot be undone, with the button that does it. */
export const confirmPage = (options: {
  readonly viewer: Viewer
  readonly title: string
  /** The heading: the title, with the user-supplied part in it isolated. */
  readonly heading: SafeHtml
  readonly explanation: SafeHtml
  readonly action: string
  readonly button: string
  readonly cancel: string
}) =>
  layout({
    title: options.title,
    viewer: options.viewer,
    section: "connection",
    main: html`<div class="confirm">
<p class="breadcrumb"><a href="${options.cancel}">Back to site connection</a></p>
<h1>${options.heading}</h1>
${options.explanation}
<form method="post" action="${options.action}">
${csrfField(options.viewer)}
<div class="actions"><button type="submit" class="danger">${options.button}</button>
<a href="${options.cancel}">Cancel</a></div>
</form>
</div>`
  })
