import type { Article, ArticleWithBody } from "../../Domain/Article.js"
import type { Preview } from "../../Domain/ArticleEdits.js"
import { previewChangeView } from "../ChangeView.js"
import { html, type SafeHtml, userTextOr } from "../Markup.js"
import { changeMark } from "../WordDiffView.js"
import { type CardState, startCard, structured, toolError } from "./Bridge.js"

/**
 * The card of the article changes (the edit and the featured image): with `dry_run`, what the change would do against
 * the article's current revision, as the editor's preview shows it (the title, meta description and body word by word,
 * the body's HTML diff with every protected link marked behind "Show HTML", and the featured image it sets); once
 * saved, the revision it made and the values it set. A refusal says that nothing was saved and why.
 */

/** The article a change answers: with its body, meta description and protected links, except the featured image's. */
type ArticleJson = typeof Article.Encoded &
  Partial<Pick<typeof ArticleWithBody.Encoded, "body" | "meta_description" | "protected_links">>

interface Change {
  readonly data: ArticleJson
  readonly preview?: Preview
}

const field = (label: string, value: SafeHtml | string) => html`<dt>${label}</dt><dd>${value}</dd>`

/** The featured image a change sets, when it sets one. */
const featuredImage = (data: ArticleJson, input: Readonly<Record<string, unknown>>) =>
  "url" in input || "image" in input
    ? field(
        "Featured image",
        data.featured_image_url === null
          ? "(none)"
          : html`<img class="card-image" src="${data.featured_image_url}" alt="The featured image"><br><code>${data.featured_image_url}</code>`
      )
    : null

/** The fields a saved change set, with their new values (a saved change's answer does not hold the old ones). */
const savedFields = (data: ArticleJson, input: Readonly<Record<string, unknown>>) => {
  const rows: Array<SafeHtml> = []
  if (typeof input["title"] === "string") {
    rows.push(field("Title", changeMark("inserted", userTextOr(data.title, "(none)"))))
  }
  if ("meta_description" in input) {
    const next = input["meta_description"]
    rows.push(
      field(
        "Meta description",
        changeMark("inserted", userTextOr(typeof next === "string" && next !== "" ? next : null, "(none)"))
      )
    )
  }
  const image = featuredImage(data, input)
  if (image !== null) rows.push(image)
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
${savedFields(data, args)}
${protectedLinks(data.protected_links)}`
  }
  const image = featuredImage(data, args)
  return html`${title}
<p role="status"><span class="badge note">Preview</span> Nothing is saved yet. ${
    preview.changed
      ? `Saving would make revision ${data.revision}; the article is at revision ${data.revision - 1}.`
      : `The article stays at revision ${data.revision}.`
  }</p>
${
  !preview.changed
    ? html`<p>Saving this would change nothing.</p>`
    : html`${image === null ? null : html`<dl class="field-changes">${image}</dl>`}
${previewChangeView(
  // The featured image's answer has no body or meta description: its preview changes neither.
  { title: data.title, meta_description: data.meta_description ?? null, body: data.body ?? "" },
  preview
)}`
}
${protectedLinks(data.protected_links)}`
}

startCard({ name: "article-change", render })
