import { html, type SafeHtml } from "./Markup.js"

/**
 * A protected link as it stands in the canonical body's source: the sanitiser writes every attribute quoted, so an
 * anchor carrying `data-service-protected` runs from its `<a` to the first `</a>` after it (links do not nest).
 */
const PROTECTED_ANCHOR = /<a\b[^>]*\sdata-service-protected="[^"]*"[^>]*>[\s\S]*?<\/a>/g

/** A line of body source with each protected link in it marked (a padlock, the link's source kept exactly). */
const markProtected = (line: string): SafeHtml => {
  const parts: Array<SafeHtml> = []
  let at = 0
  for (const match of line.matchAll(PROTECTED_ANCHOR)) {
    parts.push(html`${line.slice(at, match.index)}`)
    parts.push(
      html`<mark class="protected-source" title="Protected link: kept exactly by every edit">${match[0]}</mark>`
    )
    at = match.index + match[0].length
  }
  parts.push(html`${line.slice(at)}`)
  return html`${parts}`
}

/** A line of a diff as shown: kept, removed, added, or a fold or hunk header between them. */
export interface DiffViewLine {
  readonly kind: "same" | "removed" | "added" | "gap"
  readonly text: string
}

/**
 * A diff as the pages and the assistants' cards show it: one block per line, marked removed (`del`), added (`ins`),
 * kept or a gap, and every protected link in a line marked, so a reader sees at a glance that the change keeps them.
 */
export const diffBlock = (lines: ReadonlyArray<DiffViewLine>): SafeHtml =>
  html`<pre class="diff">${lines.map(({ kind, text }) =>
    kind === "gap"
      ? html`<span class="gap">${text}</span>`
      : kind === "removed"
        ? html`<del>${markProtected(text)}</del>`
        : kind === "added"
          ? html`<ins>${markProtected(text)}</ins>`
          : html`<span>${markProtected(text)}</span>`
  )}</pre>`

/** A unified diff (a dry run's `preview.diff`) as a `diffBlock`, without its file headers. */
export const unifiedDiffView = (diff: string): SafeHtml =>
  diffBlock(
    diff
      .split("\n")
      .filter((line) => !/^(={5,}|--- |\+\+\+ |Index: |\\ )/.test(line) && line !== "")
      .map(
        (text): DiffViewLine => ({
          kind: text.startsWith("@@")
            ? "gap"
            : text.startsWith("-")
              ? "removed"
              : text.startsWith("+")
                ? "added"
                : "same",
          text
        })
      )
  )
