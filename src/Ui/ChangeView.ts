import type { Preview } from "../Domain/ArticleEdits.js"
import { textBefore } from "../Domain/BodyDiff.js"
import { blockDiff, foldBlocks, plainTokens, wordDiff } from "../Domain/WordDiff.js"
import { textBlocks } from "../Html/TextBlocks.js"
import { unifiedDiffView } from "./DiffView.js"
import { html, type SafeHtml } from "./Markup.js"
import { tokensView, wordDiffView } from "./WordDiffView.js"

/**
 * A change as a writer reads it, for the editor's preview, the revision page and the assistants' change card: the text
 * with removed words struck through and inserted ones marked, and the exact HTML diff one click away ("Show HTML").
 */

/** A title's or meta description's change, word by word; "(none)" for a field empty on both sides. */
export const fieldDiff = (before: string | null, after: string | null): SafeHtml => {
  const tokens = wordDiff(plainTokens(before), plainTokens(after))
  return tokens.length === 0 ? html`(none)` : tokensView(tokens)
}

/** The fields that differ, each as a word diff, in a `field-changes` list. */
export const fieldChangesList = (
  fields: ReadonlyArray<{ readonly label: string; readonly before: string | null; readonly after: string | null }>
): SafeHtml =>
  html`<dl class="field-changes">${fields.map(
    (field) => html`<dt>${field.label}</dt>
<dd class="word-diff">${fieldDiff(field.before, field.after)}</dd>`
  )}</dl>`

/**
 * The body's change from `before` to `after` (both canonical): the word diff, then `htmlDiff` (the line diff of the
 * source) in a "Show HTML" disclosure. When the text reads the same, says that only the HTML changed.
 */
export const bodyChangeView = (before: string, after: string, htmlDiff: SafeHtml): SafeHtml => {
  const blocks = foldBlocks(blockDiff(textBlocks(before), textBlocks(after)))
  const textChanged = blocks.some((block) => block.kind !== "same" && block.kind !== "gap")
  return html`${
    textChanged
      ? wordDiffView(blocks)
      : html`<p>The text reads the same; only the HTML changed (attributes, links or elements without text).</p>`
  }
<details class="html-diff"><summary>Show HTML</summary>${htmlDiff}</details>`
}

/**
 * What a dry run's change does (`preview.changed`), as a writer reads it: the title and meta description it changes,
 * word by word, from the preview's `current` ones to `article`'s (the article as it would be saved), then the body's
 * change from the body the preview's diff was made from, with that diff behind "Show HTML".
 */
export const previewChangeView = (
  article: { readonly title: string | null; readonly meta_description: string | null; readonly body: string },
  preview: Preview
): SafeHtml => {
  const fields = [
    { label: "Title", changed: preview.title_changed, before: preview.current.title, after: article.title },
    {
      label: "Meta description",
      changed: preview.meta_description_changed,
      before: preview.current.meta_description,
      after: article.meta_description
    }
  ].filter((field) => field.changed)
  return html`${fields.length === 0 ? null : fieldChangesList(fields)}
${
  preview.diff === ""
    ? html`<p>The body stays as it is.</p>`
    : html`<h3>Body: the change</h3>
${bodyChangeView(textBefore(article.body, preview.diff), article.body, unifiedDiffView(preview.diff))}`
}`
}
