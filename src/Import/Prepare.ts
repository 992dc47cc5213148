import { Either, ParseResult, Schema } from "effect"
import type { ProtectedLink } from "../Domain/Article.js"
import { sanitize } from "../Html/Sanitize.js"
import { ImportFile, type ImportSite } from "./ImportFile.js"
import { ImportRefused } from "./ImportRefused.js"

/** A decoded article whose body is canonical, with its word count and protected links. */
export interface PreparedArticle extends Omit<ImportSite["articles"][number], "body"> {
  readonly body: string
  readonly word_count: number
  readonly protected_links: ReadonlyArray<ProtectedLink>
}

export interface PreparedSite extends Omit<ImportSite, "articles"> {
  readonly articles: ReadonlyArray<PreparedArticle>
}

export interface PreparedAccount extends Omit<ImportFile["accounts"][number], "sites"> {
  readonly sites: ReadonlyArray<PreparedSite>
}

export interface PreparedFile {
  readonly accounts: ReadonlyArray<PreparedAccount>
}

/** `["accounts", 0, "sites", 1, "url"]` → `accounts[0].sites[1].url`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key, i) =>
      typeof key === "number"
        ? `[${key}]`
        : typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
          ? `${i === 0 ? "" : "."}${key}`
          : `[${JSON.stringify(String(key))}]`
    )
    .join("")

// Decode messages can echo the offending value, and an unknown key is part of the path: either may be huge.
const MAX_LENGTH = 200
const truncate = (s: string) => (s.length > MAX_LENGTH ? `${s.slice(0, MAX_LENGTH - 1)}…` : s)

const refused = (path: ReadonlyArray<PropertyKey>, reason: string) =>
  new ImportRefused({ path: truncate(formatPath(path)), reason: truncate(reason) })

const decode = Schema.decodeUnknownEither(ImportFile, { onExcessProperty: "error", errors: "first" })

/** The first field the file's shape rejects, as `ImportRefused`. */
const decodeFile = (input: unknown): Either.Either<ImportFile, ImportRefused> =>
  Either.mapLeft(decode(input), (error) => {
    const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
    return first === undefined ? refused([], "is not a valid import file") : refused(first.path, first.message)
  })

/** Remembers keys already seen under a path; reports the earlier path when a key comes back. */
const seen = () => {
  const paths = new Map<string, string>()
  return (key: string, path: ReadonlyArray<PropertyKey>): string | undefined => {
    const earlier = paths.get(key)
    if (earlier === undefined) paths.set(key, formatPath(path))
    return earlier
  }
}

/**
 * Decodes an import file and readies it for writing: every body in canonical form (as the sanitiser serialises it)
 * with its word count and protected links. Refused whole, naming the first bad field: a shape error, a body with
 * disallowed HTML, or a record that appears twice (the same e-mail, website URL, article URL, or backlink source
 * and target URL), which would otherwise import as one record overwritten by the other.
 */
export const prepare = (input: unknown): Either.Either<PreparedFile, ImportRefused> =>
  Either.flatMap(decodeFile(input), (file) => {
    const emails = seen()
    const accounts: Array<PreparedAccount> = []
    for (const [a, account] of file.accounts.entries()) {
      const accountPath = ["accounts", a]
      const again = emails(account.email.toLowerCase(), [...accountPath, "email"])
      if (again !== undefined) return Either.left(refused([...accountPath, "email"], `repeats ${again}`))
      const websites = seen()
      const sites: Array<PreparedSite> = []
      for (const [s, site] of account.sites.entries()) {
        const sitePath = [...accountPath, "sites", s]
        const repeated = websites(site.website_url, [...sitePath, "website_url"])
        if (repeated !== undefined) return Either.left(refused([...sitePath, "website_url"], `repeats ${repeated}`))
        const urls = seen()
        const articles: Array<PreparedArticle> = []
        for (const [i, article] of site.articles.entries()) {
          const path = [...sitePath, "articles", i]
          const repeatedUrl = urls(article.url, [...path, "url"])
          if (repeatedUrl !== undefined) return Either.left(refused([...path, "url"], `repeats ${repeatedUrl}`))
          const clean = sanitize(article.body)
          if (clean._tag === "Disallowed") {
            return Either.left(refused([...path, "body"], `disallowed HTML: ${clean.construct}`))
          }
          articles.push({
            ...article,
            body: clean.html,
            word_count: clean.wordCount,
            protected_links: clean.protectedLinks
          })
        }
        const links = seen()
        for (const [i, backlink] of site.backlinks.entries()) {
          const path = [...sitePath, "backlinks", i]
          const repeatedLink = links(JSON.stringify([backlink.source_url, backlink.target_url]), path)
          if (repeatedLink !== undefined) {
            return Either.left(refused(path, `repeats the source_url and target_url of ${repeatedLink}`))
          }
        }
        sites.push({ ...site, articles })
      }
      accounts.push({ ...account, sites })
    }
    return Either.right({ accounts })
  })

/** Parses the text of an import file; invalid JSON is refused with the parser's reason. */
export const parseJson = (text: string): Either.Either<unknown, ImportRefused> =>
  Either.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) =>
      new ImportRefused({
        path: "",
        reason: `the file is not valid JSON (${error instanceof Error ? error.message : String(error)})`
      })
  })
