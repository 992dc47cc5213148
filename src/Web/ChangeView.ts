import { blockDiff, foldBlocks, plainTokens, wordDiff } from "../Domain/WordDiff.js"
import { textBlocks } from "../Html/TextBlocks.js"
import { html, type SafeHtml } from "../Ui/Html.js"
import { tokensView, wordDiffView } from "../Ui/WordDiffView.js"

/**
 * A change as a writer reads it, for the editor's preview and the revision page: the text with removed words struck
 * through and inserted ones marked, and the exact HTML diff one click away ("Show HTML").
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
