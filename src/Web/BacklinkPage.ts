import type { BacklinkCheck, BacklinkWithChecks } from "../Domain/Backlink.js"
import { SHOWN_CHECKS } from "../Domain/Backlink.js"
import { html, userText, userTextOr } from "../Ui/Html.js"
import { healthBadge, healthNotes, lastChecked, outcomeBadge, relTags } from "./BacklinkHealth.js"
import { externalLink, layout, none, stackedTable, timestamp, type Viewer } from "./Layout.js"

/** The page's name for a backlink: where it is, by its source's domain or address. */
const nameOf = (link: BacklinkWithChecks) => link.source_domain ?? link.source_url ?? `backlink ${link.id}`

/** What the answer was: its HTTP status, a 304 for a page as before, or that the article held here was read. */
const answerOf = (check: BacklinkCheck) => {
  if (!check.fetched) return html`<span class="muted">Not fetched: an article held by this service</span>`
  if (check.http_status === null) return none
  return check.not_modified
    ? html`${check.http_status} <span class="muted">(not modified)</span>`
    : html`${check.http_status}`
}

/** The address the redirects ended on, when it is not the source page itself. */
const finalUrlOf = (check: BacklinkCheck, sourceUrl: string | null) =>
  check.final_url === null || check.final_url === sourceUrl
    ? none
    : html`<span class="address final-url">${userText(check.final_url)}</span>`

const yesNo = (value: boolean | null) => (value === null ? none : value ? "Yes" : "No")

const checksTable = (link: BacklinkWithChecks) =>
  stackedTable({
    caption: `Last ${SHOWN_CHECKS} checks, newest first`,
    columns: [
      { label: "Time" },
      { label: "Outcome", plain: true },
      { label: "HTTP status" },
      { label: "Final URL" },
      { label: "rel" },
      { label: "Anchor found" },
      { label: "Indexable" },
      { label: "Took", num: true },
      { label: "Error" }
    ],
    compact: true,
    rows: link.checks.map(
      (check) =>
        [
          timestamp(check.checked_at),
          outcomeBadge(check.outcome),
          answerOf(check),
          finalUrlOf(check, link.source_url),
          check.rel.length === 0 ? none : html`<span class="health-notes">${relTags(check.rel)}</span>`,
          userTextOr(check.anchor_text, none),
          yesNo(check.indexable),
          // A no-break space: the number and its unit stay on one line.
          `${check.duration_ms}\u00a0ms`,
          check.error === null ? none : html`<span class="check-error">${userText(check.error)}</span>`
        ] as const
    )
  })

/** `GET /backlinks/:id`: a backlink, how it stands, and its last checks. */
export const backlinkPage = (viewer: Viewer, link: BacklinkWithChecks) =>
  layout({
    title: `Backlink from ${nameOf(link)}`,
    viewer,
    section: "sites",
    main: html`<p class="breadcrumb"><a href="/sites/${link.site_id}#backlinks">Back to the website</a></p>
<h1>Backlink from ${userText(nameOf(link))}</h1>
<dl class="meta">
<dt>Source page</dt><dd>${externalLink(link.source_url)}</dd>
<dt>Links to</dt><dd>${externalLink(link.target_url)}</dd>
<dt>Status</dt><dd>${healthBadge(link.status)}</dd>
<dt>Health</dt><dd>${healthNotes(link)}</dd>
<dt>Last checked</dt><dd>${lastChecked(link.last_checked_at)}</dd>
<dt>Anchor text</dt><dd>${userTextOr(link.anchor_text, none)}</dd>
<dt>Anchor type</dt><dd>${link.anchor_type?.replace("_", " ") ?? none}</dd>
<dt>Category</dt><dd>${link.category}</dd>
<dt>Acquired</dt><dd>${timestamp(link.acquired_at)}</dd>
</dl>
<h2 id="checks">Checks</h2>
<p class="muted">The service fetches the source page and looks for the link: ${
      link.status === "lost" ? "every 14 days while it is lost" : "daily while it is pending, weekly once it is live"
    }, and again within hours after a failed fetch (one failure alone never makes a link lost). The last
${SHOWN_CHECKS} checks are shown, newest first; checks are kept 90 days. <a href="/link-checker">How the checker works</a>.</p>
${
  link.checks.length === 0
    ? html`<p>${
        link.source_url === null || link.target_url === null
          ? "This backlink cannot be checked: it has no source page or no target address."
          : "No check has been made yet."
      }</p>`
    : checksTable(link)
}`
  })
