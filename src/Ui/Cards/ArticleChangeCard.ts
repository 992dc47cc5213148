import type { Article, ArticleWithBody } from "../../Domain/Article.js"
import type { Preview } from "../../Domain/ArticleEdits.js"
import { unifiedDiffView } from "../DiffView.js"
import { html, type SafeHtml, userTextOr } from "../Markup.js"
import { type CardState, startCard, structured, toolError } from "./Bridge.js"

/**
 * The card of the article changes (the edit and the featured image): with `dry_run`, what the change would do (the title,
 * meta description and featured image it sets, the body's diff with every protected link marked) against the
 * article's current revision; once saved, the revision it made. A refusal says that nothing was saved and why.
 */

type ArticleJson = typeof Article.Encoded & Partial<Pick<typeof ArticleWithBody.Encoded, "protected_links">>

interface Change {
  readonly data: ArticleJson
  readonly preview?: Preview
}

const field = (label: string, value: SafeHtml | string) => html`<dt>${label}</dt><dd>${value}</dd>`

/** The fields a change sets, with their new values (the card is not told the old ones). */
const fieldChanges = (change: Change, input: Readonly<Record<string, unknown>>) => {
  const { data, preview } = change
  const rows: Array<SafeHtml> = []
  const saved = preview === undefined
  if (preview?.title_changed === true || (saved && typeof input["title"] === "string")) {
    rows.push(field("Title", html`<ins>${userTextOr(data.title, "(none)")}</ins>`))
  }
  if (preview?.meta_description_changed === true || (saved && "meta_description" in input)) {
    const next = input["meta_description"]
    rows.push(
      field(
        "Meta description",
        html`<ins>${userTextOr(typeof next === "string" && next !== "" ? next : null, "(none)")}</ins>`
      )
    )
  }
  if ("url" in input || "image" in input) {
    rows.push(
      field(
        "Featured image",
        data.featured_image_url === null
          ? "(none)"
          : html`<img class="card-image" src="${data.featured_image_url}" alt="The featured image"><br><code>${data.featured_image_url}</code>`
      )
    )
  }
  return rows.length === 0 ? null : html`<dl class="field-changes">${rows}</dl>`
}

const protectedLinks = (links: ArticleJson["protected_links"]) =>
  links === undefined || links.length === 0
    ? null
    : html`<h3>Protected links (${links.length}), kept exactly</h3>
<ul class="protected">${links.map(
        (link) =>
          html`<li><span class="protected-link"><span class="protected-text">${link.text}</span><span class="protected-target">${link.href}</span></span> <span class="muted">${link.type}</span></li>`
      )}</ul>`

const render = ({ input, result }: CardState): SafeHtml => {
  const refused = toolError(result)
  if (refused !== undefined) {
    return html`<div class="error" role="alert"><p><strong>Nothing was saved.</strong> ${refused.message}</p><p class="muted">${refused.error}</p></div>`
  }
  const content = structured(result) as Change | undefined
  if (content === undefined) {
    return html`<p class="muted" role="status">${input === undefined ? "Waiting for the change…" : "Checking the change…"}</p>`
  }
  const { data, preview } = content
  const title = html`<h2>${userTextOr(data.title, `Article ${data.id}`)}</h2>`
  const args = input ?? {}
  if (preview === undefined) {
    return html`${title}
<p role="status"><span class="badge published">Saved</span> Revision ${data.revision} is now the article's current revision.</p>
${fieldChanges(content, args)}
${protectedLinks(data.protected_links)}`
  }
  return html`${title}
<p role="status"><span class="badge note">Preview</span> Nothing is saved yet. ${
    preview.changed
      ? `Saving would make revision ${data.revision}; the article is at revision ${data.revision - 1}.`
      : `The article stays at revision ${data.revision}.`
  }</p>
${
  !preview.changed
    ? html`<p>Saving this would change nothing.</p>`
    : html`${fieldChanges(content, args)}
${preview.diff === "" ? html`<p>The body stays as it is.</p>` : html`<h3>Body: changed lines</h3>${unifiedDiffView(preview.diff)}`}`
}
${protectedLinks(data.protected_links)}`
}

startCard({ name: "article-change", render })
