import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { iconSvg } from "./Icon.js"

/**
 * A file kept beside this module: in src/Ui/ when the sources run, in dist/ (where the build copies it) when the
 * build runs.
 */
const besideThisModule = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), "utf8")

/** The one stylesheet of every page (site.css says how it is built); the assistants' cards carry it too. */
export const stylesheet = besideThisModule("site.css")

/** The sandboxed article-body frame's only style. */
const frameStylesheet = besideThisModule("frame.css")

/**
 * A file scripts/build.js writes into dist/ (a browser script): beside this module when the build runs, in dist/ of
 * the package when the sources do.
 */
export const builtFile = (name: string): string =>
  readFileSync(
    [new URL(`./${name}`, import.meta.url), new URL(`../../dist/${name}`, import.meta.url)].find((url) =>
      existsSync(url)
    ) ?? new URL(`./${name}`, import.meta.url),
    "utf8"
  )

/** The article page's editor (src/Ui/Editor/, built into dist/editor.js). */
const editorScript = builtFile("editor.js")

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

const version = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12)

/** The addresses pages link to; the content hash in the query makes a changed file a new URL for caches. */
export const stylesheetHref = `/assets/site.css?v=${version(stylesheet)}`
export const copyScriptSrc = `/assets/copy.js?v=${version(copyScript)}`
export const editorScriptSrc = `/assets/editor.js?v=${version(editorScript)}`
export const iconHref = `/assets/icon.svg?v=${version(iconSvg)}`

const asset = (body: string, contentType: string, cacheControl = "public, max-age=31536000, immutable") =>
  Effect.succeed(
    HttpServerResponse.text(body, {
      contentType,
      headers: {
        "cache-control": cacheControl,
        "x-content-type-options": "nosniff"
      }
    })
  )

/**
 * `GET /assets/site.css`, `/assets/frame.css` (inside article frames), `/assets/copy.js` and `/assets/icon.svg`: the
 * pages' only files. `/favicon.ico` answers the same icon for browsers and tools that ask for it by that name (an SVG
 * under that name, for a day, since its address carries no version).
 */
export const AssetRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    yield* router.get("/assets/site.css", asset(stylesheet, "text/css; charset=utf-8"))
    yield* router.get("/assets/frame.css", asset(frameStylesheet, "text/css; charset=utf-8"))
    yield* router.get("/assets/copy.js", asset(copyScript, "text/javascript; charset=utf-8"))
    yield* router.get("/assets/editor.js", asset(editorScript, "text/javascript; charset=utf-8"))
    yield* router.get("/assets/icon.svg", asset(iconSvg, "image/svg+xml"))
    yield* router.get("/favicon.ico", asset(iconSvg, "image/svg+xml", "public, max-age=86400"))
  })
)
