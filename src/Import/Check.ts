import { Effect, Either, Stream } from "effect"
import type { ImportFile } from "./ImportFile.js"
import type { ImportRefused } from "./ImportRefused.js"
import type { JsonItem } from "./JsonItems.js"
import { decodeArticle, decodeBacklink, decodeOutline, recordPath, refused, seen } from "./Prepare.js"

/** What the first reading of a file found: its accounts and websites (without their records), and how many records. */
export interface Plan {
  readonly file: ImportFile
  readonly articles: number
  readonly backlinks: number
}

/**
 * Reads the file once without writing anything: every record's shape, and no record twice (the same e-mail, website
 * URL, article URL, or backlink source and target URL), which would otherwise import as one record overwritten by
 * the other. Fails with the first bad field; a repeat is reported only when no field is bad. `read` is told how far
 * into the file it is.
 */
export const check = (
  items: Stream.Stream<JsonItem, ImportRefused>,
  read: (bytes: number) => Effect.Effect<void>
): Effect.Effect<Plan, ImportRefused> =>
  Effect.gen(function* () {
    const keysOf = new Map<string, ReturnType<typeof seen>>()
    const keys = (kind: string, account: number, site: number) => {
      const name = `${kind} ${account} ${site}`
      const found = keysOf.get(name) ?? seen()
      keysOf.set(name, found)
      return found
    }
    let repeat: ImportRefused | undefined
    let outline: unknown
    const counts = { articles: 0, backlinks: 0 }
    yield* Stream.runForEach(items, (item) =>
      Effect.gen(function* () {
        if (item.kind === "file") {
          outline = item.value
          return yield* read(item.bytes)
        }
        const path = recordPath(item)
        counts[item.kind]++
        if (item.kind === "articles") {
          const article = yield* decodeArticle(item.value, path)
          const earlier = keys(item.kind, item.account, item.site)(article.url, [...path, "url"])
          if (earlier !== undefined) repeat ??= refused([...path, "url"], `repeats ${earlier}`)
        } else {
          const backlink = yield* decodeBacklink(item.value, path)
          const key = JSON.stringify([backlink.source_url, backlink.target_url])
          const earlier = keys(item.kind, item.account, item.site)(key, path)
          if (earlier !== undefined) repeat ??= refused(path, `repeats the source_url and target_url of ${earlier}`)
        }
        yield* read(item.bytes)
      })
    )
    const file = yield* decodeOutline(outline, [])
    const emails = seen()
    for (const [a, account] of file.accounts.entries()) {
      const at = ["accounts", a, "email"]
      const again = emails(account.email.toLowerCase(), at)
      if (again !== undefined) return yield* refused(at, `repeats ${again}`)
      const websites = seen()
      for (const [s, site] of account.sites.entries()) {
        const siteAt = ["accounts", a, "sites", s, "website_url"]
        const repeated = websites(site.website_url, siteAt)
        if (repeated !== undefined) return yield* refused(siteAt, `repeats ${repeated}`)
      }
    }
    if (repeat !== undefined) return yield* Either.left(repeat)
    return { file, ...counts }
  })
