import { Effect } from "effect"
import { storedLinks } from "../Articles/StoredLinks.js"
import type { SiteId } from "../Domain/Ids.js"
import type { ImportRefused } from "./ImportRefused.js"
import type { JsonItem } from "./JsonItems.js"
import { decodeArticle, decodeBacklink, prepareArticle, recordPath } from "./Prepare.js"
import type { ArticleRecord, BacklinkRecord } from "./Repo.js"

/**
 * Records written per statement: few round trips for a large file, far below PostgreSQL's parameter limit, and all
 * that an import holds of its file's records at any time.
 */
const BATCH = 250

/** Records of one kind of one website, in the order of the file. */
export interface Batch {
  readonly kind: "articles" | "backlinks"
  readonly account: number
  readonly site: number
  readonly items: Array<JsonItem & { readonly kind: "articles" | "backlinks" }>
}

export type PreparedBatch =
  | { readonly kind: "articles"; readonly rows: ReadonlyArray<ArticleRecord> }
  | { readonly kind: "backlinks"; readonly rows: ReadonlyArray<BacklinkRecord> }

/**
 * Groups records into batches of one kind of one website, at most `BATCH` long. The file itself comes last (it ends
 * last), and hands on the last batch.
 */
export const batches = (open: Batch | undefined, item: JsonItem): [Batch | undefined, ReadonlyArray<Batch>] => {
  if (item.kind === "file") return [undefined, open === undefined ? [] : [open]]
  const joins =
    open !== undefined &&
    open.kind === item.kind &&
    open.account === item.account &&
    open.site === item.site &&
    open.items.length < BATCH
  if (joins) {
    open.items.push(item)
    return [open, []]
  }
  const next: Batch = { kind: item.kind, account: item.account, site: item.site, items: [item] }
  return [next, open === undefined ? [] : [open]]
}

/** The rows of a batch of one website's records, decoded again, with each article's body sanitised. */
export const prepareBatch = (siteId: SiteId, batch: Batch): Effect.Effect<PreparedBatch, ImportRefused> =>
  Effect.gen(function* () {
    if (batch.kind === "articles") {
      const rows = []
      for (const item of batch.items) {
        const path = recordPath(item)
        const article = yield* prepareArticle(yield* decodeArticle(item.value, path), path)
        rows.push({
          site_id: siteId,
          title: article.title ?? null,
          url: article.url,
          status: article.status ?? null,
          published_at: article.published_at ?? null,
          target_keyword: article.target_keyword ?? null,
          meta_description: article.meta_description ?? null,
          featured_image_url: article.featured_image_url ?? null,
          body: article.body,
          word_count: article.word_count,
          body_text: article.body_text,
          ...storedLinks(article.body, article.protected_links)
        })
      }
      return { kind: "articles", rows } as const
    }
    const rows = []
    for (const item of batch.items) {
      const backlink = yield* decodeBacklink(item.value, recordPath(item))
      rows.push({
        site_id: siteId,
        acquired_at: backlink.acquired_at ?? null,
        source_domain: backlink.source_domain ?? null,
        source_url: backlink.source_url,
        target_url: backlink.target_url,
        anchor_text: backlink.anchor_text ?? null,
        anchor_type: backlink.anchor_type ?? null,
        status: backlink.status ?? null,
        category: backlink.category
      })
    }
    return { kind: "backlinks", rows } as const
  })
