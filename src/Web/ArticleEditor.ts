import type { ArticleWithBody } from "../Domain/Article.js"
import { MAX_IMAGE_BYTES, MAX_META_DESCRIPTION, MAX_TITLE, type Preview } from "../Domain/ArticleEdits.js"
import { ProtectedLinkViolation } from "../Domain/Errors.js"
import { previewChangeView } from "../Ui/ChangeView.js"
import { html, type SafeHtml } from "../Ui/Html.js"
import { explain } from "./ArticleErrors.js"
import { bodyFrame } from "./BodyFrame.js"
import type { Viewer } from "./Layout.js"

/** What the editor shows: the saved values, or the ones just submitted when they were refused or previewed. */
export interface EditorValues {
  readonly title: string
  readonly meta_description: string
  readonly body: string
  readonly reason: string
  /** The body's editor as last used: rich text, or "Edit HTML" (the textarea); the page opens in it again. */
  readonly mode: EditorMode
}

export type EditorMode = "rich" | "html"

/** The mode a form says was in use; anything else is rich text, the editor's usual start. */
export const editorModeOf = (value: string | undefined): EditorMode => (value === "html" ? "html" : "rich")

/** The action of the refusal's "Put the protected links back" button. */
export const PUT_BACK_LINKS = "put_back_links"

/** What the editor says next to its Save button: why the save was refused, or what was just done to the text. */
export type EditorNote = { readonly _tag: "Refused"; readonly error: unknown } | { readonly _tag: "LinksPutBack" }

/**
 * A refused save (with "Put the protected links back" when protected links are why), or the news that they are
 * back. It takes the focus when the page opens, so that it is read out and scrolled to.
 */
const editorNote = (note: EditorNote) =>
  note._tag === "LinksPutBack"
    ? html`<div class="notice" id="editor-note" role="status" tabindex="-1" autofocus><p>The protected links are back where they stood. Nothing is saved until you press Save.</p></div>`
    : html`<div class="error" id="editor-note" role="alert" tabindex="-1" autofocus><p>Nothing was saved. Your text is still in the editor, as you typed it.</p>${explain(note.error)}${
        note.error instanceof ProtectedLinkViolation
          ? html`<div class="actions"><button type="submit" name="action" value="${PUT_BACK_LINKS}">Put the protected links back</button></div>`
          : null
      }</div>`

/**
 * The editor's form. Without script it is what it looks like: fields and an HTML textarea. The editor script
 * (src/Ui/Editor/) replaces the textarea with rich text, counts the title's and meta description's characters
 * against `data-max`, and shows "Preview changes" in the page instead of loading a new one. The hidden `mode` says
 * which of rich text and "Edit HTML" was in use, so that a refused save comes back in it; `note` is said next to Save.
 */
export const editorForm = (viewer: Viewer, article: ArticleWithBody, editor: EditorValues, note?: EditorNote) =>
  html`<form method="post" action="/articles/${article.id}/edit" class="article-editor">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<input type="hidden" name="mode" value="${editor.mode}">
<label for="title">Title</label><input type="text" id="title" name="title" value="${editor.title}" data-max="${MAX_TITLE}" data-min="1">
<label for="meta_description">Meta description</label><textarea id="meta_description" name="meta_description" rows="3" data-max="${MAX_META_DESCRIPTION}">${editor.meta_description}</textarea>
<label for="body">HTML body</label><textarea id="body" name="body" rows="20">${editor.body}</textarea>
<label for="reason">Reason (optional)</label><input type="text" id="reason" name="reason" value="${editor.reason}">
<div class="actions"><button type="submit" name="preview" value="1" formaction="/articles/${article.id}/preview">Preview changes</button>
<button class="primary" type="submit">Save</button></div>
${note === undefined ? null : editorNote(note)}
</form>`

/** The featured image: a file from the computer or an address, with the API's rules (10 MiB, types by content). */
export const featuredImageForm = (viewer: Viewer, article: ArticleWithBody) =>
  html`<form method="post" action="/articles/${article.id}/featured-image" enctype="multipart/form-data" class="featured-image">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="image">Upload an image: JPEG, PNG, WebP, GIF or AVIF, at most 10 MiB</label>
<input type="file" id="image" name="image" accept="image/jpeg,image/png,image/webp,image/gif,image/avif" data-max-bytes="${MAX_IMAGE_BYTES}">
<label for="image_url">Or the image's address (https://…)</label>
<input type="url" id="image_url" name="url" placeholder="https://">
<label for="image_reason">Reason for the new image (optional)</label><input type="text" id="image_reason" name="reason">
<div class="actions"><button type="submit">Set featured image</button></div>
</form>`

/**
 * "Preview changes": what saving would do, from the service's dry run (the same preview the API's `dry_run`
 * answers): title and meta description changes and the body's change, word by word (the HTML diff behind "Show
 * HTML"), and the body as it would be stored. Or the
 * refusal saving would meet.
 */
export const previewSection = (
  outcome:
    | { readonly _tag: "Preview"; readonly article: ArticleWithBody; readonly preview: Preview }
    | { readonly _tag: "Refused"; readonly error: unknown }
): SafeHtml => {
  if (outcome._tag === "Refused") {
    return html`<h2>Preview of your change</h2>
<div class="error" role="alert"><p>Saving this would be refused; nothing was saved, and your text is still in the editor.</p>${explain(outcome.error)}</div>`
  }
  const { article, preview } = outcome
  return html`<h2>Preview of your change</h2>
<p class="muted">Nothing is saved until you press Save. This is the change as the service would store it.</p>
${
  !preview.changed
    ? html`<p role="status">Saving now would change nothing.</p>`
    : html`${previewChangeView(article, preview)}
${
  preview.diff === ""
    ? null
    : html`<h3>Body as it would be stored</h3>
${bodyFrame("Body as it would be stored", article.body)}`
}`
}`
}
