import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server"
import type { ListResourcesResult, ReadResourceResult } from "@modelcontextprotocol/server"
import type { CardName } from "../Api/AgentTool.js"
import { builtFile, stylesheet } from "../Ui/Assets.js"
import { escapeHtml } from "../Ui/Markup.js"

/**
 * The cards an assistant's app shows beside a tool's result (the MCP Apps extension, `io.modelcontextprotocol/ui`): a
 * tool names its card in its `AgentTool` annotation; the tool list points to it under `_meta.ui.resourceUri`, and the
 * card is a `ui://` resource, one self-contained HTML document (the site's stylesheet and the card's script written
 * into it), drawn in the host's sandboxed frame from the result the host hands it. A host without the extension
 * ignores all of this and reads the same structured content as before.
 */

export { EXTENSION_ID }

interface Card {
  readonly name: CardName
  readonly title: string
  readonly description: string
}

const CARDS: ReadonlyArray<Card> = [
  {
    name: "article-change",
    title: "Article change",
    description:
      "What an article change does: with dry_run, the body's diff with protected links marked, the title, meta description and featured image it sets, against the current revision; once saved, the revision it made."
  },
  {
    name: "stats",
    title: "Website counts",
    description: "A website's counts for a period and its month charts (articles published, backlinks acquired)."
  }
]

/** The address of a card. */
export const cardUri = (name: CardName) => `ui://content-backlink-service/${name}.html`

/** What a tool with a card carries in the tool list: the card's address, in the extension's form and its older one. */
export const cardToolMeta = (name: CardName) => ({
  ui: { resourceUri: cardUri(name) },
  [RESOURCE_URI_META_KEY]: cardUri(name)
})

/**
 * The card's own policy, whatever its host's: its inline style and script, images from the service's media and
 * `data:` (the charts' padlock), and nothing else: no fetch, no frame, no form, no base.
 */
// `mediaOrigins` are URL origins (scheme, host, port): they hold no quote to escape.
const cardPolicy = (mediaOrigins: ReadonlyArray<string>) =>
  [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    `img-src ${mediaOrigins.join(" ")} data:`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'"
  ].join("; ")

/** A card's document. Its script never contains `</script` (written as `<\/script`, the same in every JS context). */
const cardHtml = (card: Card, mediaOrigins: ReadonlyArray<string>) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${cardPolicy(mediaOrigins)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(card.title)}</title>
<style>${stylesheet}</style>
</head>
<body class="mcp-card">
<main id="card" aria-live="polite"><p class="muted" role="status">Waiting for the result…</p></main>
<script>${builtFile(`cards/${card.name}.js`).replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>
`

/** `resources/list`: the cards. */
const cardResources = CARDS.map((card) => ({
  uri: cardUri(card.name),
  name: card.name,
  title: card.title,
  description: card.description,
  mimeType: RESOURCE_MIME_TYPE
}))

/** What the MCP server answers of the cards: their list, and each one's document by its address. */
export interface Cards {
  readonly list: () => ListResourcesResult
  /** `resources/read` of a card, or undefined for an address that is none. */
  readonly read: (uri: string) => ReadResourceResult | undefined
}

/**
 * The cards of a service whose uploaded images are at `mediaOrigins`, written once. A card fetches nothing and
 * connects nowhere (the extension's default policy); `mediaOrigins` are the only places it may show images from (an
 * uploaded featured image): the service's own origins, the first being the one the client uses.
 */
export const makeCards = (mediaOrigins: ReadonlyArray<string>): Cards => {
  const documents = new Map(
    CARDS.map((card): [string, ReadResourceResult] => {
      const uri = cardUri(card.name)
      const content = {
        uri,
        mimeType: RESOURCE_MIME_TYPE,
        text: cardHtml(card, mediaOrigins),
        _meta: { ui: { csp: { resourceDomains: [...mediaOrigins] }, prefersBorder: true } }
      }
      return [uri, { contents: [content] }]
    })
  )
  return { list: () => ({ resources: cardResources }), read: (uri) => documents.get(uri) }
}
