import { createHash } from "node:crypto"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** The one stylesheet of every page: system colours (light and dark), readable from 320 px up. */
const stylesheet = `:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --accent: #1a56db; --line: #8886; }
body { margin: 0; line-height: 1.5; background: Canvas; color: CanvasText; }
a { color: LinkText; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: Canvas; padding: 0.5rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
header.site { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.75rem 1rem;
  border-bottom: 1px solid var(--line); }
header.site nav ul { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; margin: 0; padding: 0; }
header.site nav a[aria-current="page"] { font-weight: 700; }
header.site .account { margin-left: auto; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
header.site .account form { margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
main.card { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; border: 1px solid var(--line); border-radius: 0.75rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; }
/* Addresses may break anywhere, so that on a phone they do not push the counts out of view. */
td.url { word-break: break-all; }
@media (max-width: 40rem) { th, td { padding: 0.35rem 0.3rem; } th.num { font-size: 0.85rem; } }
dl.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: 0.75rem; }
dl.stats div { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.5rem 0.75rem; }
dl.stats dt { font-size: 0.9rem; } dl.stats dd { margin: 0; font-size: 1.4rem; font-weight: 700; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input, select { font: inherit; padding: 0.5rem; border: 1px solid #888; border-radius: 0.4rem; max-width: 100%; }
input[type=email], input[type=password], input[type=text], input.secret { width: 100%; box-sizing: border-box; }
input.secret { font-family: ui-monospace, monospace; }
.inline { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
.inline label { margin-top: 0; }
.inline input.secret { flex: 1 1 14rem; width: auto; }
.actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1.5rem; }
button { font: inherit; padding: 0.5rem 1rem; border-radius: 0.4rem; border: 1px solid #888; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.link { background: none; border: none; padding: 0; color: inherit; text-decoration: underline; }
.error, .warning { padding: 0.75rem; border-radius: 0.4rem; background: #fde8e8; color: #9b1c1c; }
.notice { padding: 0.75rem; border-radius: 0.4rem; background: #def7ec; color: #03543f; }
.muted { opacity: 0.8; font-size: 0.9rem; }
nav.pages { display: flex; flex-wrap: wrap; gap: 1rem; margin: 0.75rem 0; }
pre, code { font-family: ui-monospace, monospace; font-size: 0.9rem; }
iframe.body { width: 100%; min-height: 24rem; border: 1px solid var(--line); border-radius: 0.4rem; }
textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem; border: 1px solid #888; border-radius: 0.4rem; }
textarea#body { font-family: ui-monospace, monospace; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; } dl.meta dd { margin: 0; }
img.featured { max-width: 16rem; height: auto; }
pre.diff del { background: #fde8e8; color: #9b1c1c; text-decoration: none; }
pre.diff ins { background: #def7ec; color: #03543f; text-decoration: none; }
pre { overflow-x: auto; padding: 0.5rem; border: 1px solid var(--line); border-radius: 0.4rem; }
`

/** Copy buttons: hidden until this script runs, then copy the text of the field they name. */
const copyScript = `"use strict";
for (const button of document.querySelectorAll("button[data-copy]")) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!field) continue;
  button.hidden = false;
  button.addEventListener("click", () => {
    const text = field.value ?? field.textContent;
    const say = (message) => { if (status) status.textContent = message; };
    navigator.clipboard.writeText(text).then(
      () => say("Copied."),
      () => { field.select?.(); say("Press Ctrl+C (or Cmd+C) to copy."); }
    );
  });
}
`

/** The sandboxed article-body frame's only style: protected links stand out (the frame allows no inline style). */
const frameStylesheet = `body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 0.5rem; }
a[data-service-protected] { background: #fff3a0; color: #000; outline: 2px solid #c27c0e; }
a[data-service-protected]::after { content: " (protected)"; font-size: 0.75em; color: #5a4a00; }
`

const version = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12)

/** The addresses pages link to; the content hash in the query makes a changed file a new URL for caches. */
export const stylesheetHref = `/assets/site.css?v=${version(stylesheet)}`
export const copyScriptSrc = `/assets/copy.js?v=${version(copyScript)}`

const asset = (body: string, contentType: string) =>
  Effect.succeed(
    HttpServerResponse.text(body, {
      contentType,
      headers: {
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff"
      }
    })
  )

/** `GET /assets/site.css`, `/assets/frame.css` (inside article frames) and `/assets/copy.js`: the pages' only files. */
export const AssetRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    yield* router.get("/assets/site.css", asset(stylesheet, "text/css; charset=utf-8"))
    yield* router.get("/assets/frame.css", asset(frameStylesheet, "text/css; charset=utf-8"))
    yield* router.get("/assets/copy.js", asset(copyScript, "text/javascript; charset=utf-8"))
  })
)
