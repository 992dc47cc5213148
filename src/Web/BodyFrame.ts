import { html } from "../Ui/Html.js"

/** The stylesheet of the sandboxed body frame: protected links stand out. */
export const frameStylesheetHref = "/assets/frame.css"

/**
 * A body in a sandboxed frame (no scripts, opaque origin). The body is the sanitised, canonical HTML; the frame's
 * only styling is a stylesheet from this site, never an inline style.
 */
export const bodyFrame = (title: string, body: string) =>
  html`<iframe class="body" sandbox title="${title}" srcdoc="${`<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${frameStylesheetHref}"></head><body>${body}</body></html>`}"></iframe>`
