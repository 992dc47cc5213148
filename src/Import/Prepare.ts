import { Either, ParseResult, Schema } from "effect"
import type { ProtectedLink } from "../Domain/Article.js"
import { sanitize } from "../Html/Sanitize.js"
import { type ImportArticle, ImportArticle as ImportArticleSchema, ImportBacklink, ImportFile } from "./ImportFile.js"
import { ImportRefused } from "./ImportRefused.js"

/** A decoded article whose body is canonical, with its word count, text and protected links. */
export interface PreparedArticle extends Omit<ImportArticle, "body"> {
  readonly body: string
  readonly word_count: number
  /** The body's readable text, which search indexes. */
  readonly body_text: string
  readonly protected_links: ReadonlyArray<ProtectedLink>
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

/** A refusal naming the field at `path`, both cut short when long. */
export const refused = (path: ReadonlyArray<PropertyKey>, reason: string) =>
  new ImportRefused({ path: truncate(formatPath(path)), reason: truncate(reason) })

const options = { onExcessProperty: "error", errors: "first" } as const

/** Decodes `input` with `schema`; the first field it rejects, under `at`, as `ImportRefused`. */
const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, options)
  return (input: unknown, at: ReadonlyArray<PropertyKey>): Either.Either<A, ImportRefused> =>
    Either.mapLeft(decode(input), (error) => {
      const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
      return first === undefined
        ? refused(at, "is not valid in an import file")
        : refused([...at, ...first.path], first.message)
    })
}

/** The file without its articles and backlinks (as `readJsonItems` hands it on at its end). */
export const decodeOutline = decoder(ImportFile)
export const decodeArticle = decoder(ImportArticleSchema)
export const decodeBacklink = decoder(ImportBacklink)

/** Remembers keys already seen under a path; reports the earlier path when a key comes back. */
export const seen = () => {
  const paths = new Map<string, string>()
  return (key: string, path: ReadonlyArray<PropertyKey>): string | undefined => {
    const earlier = paths.get(key)
    if (earlier === undefined) paths.set(key, formatPath(path))
    return earlier
  }
}

/** The path of a record: `accounts[a].sites[s].articles[i]`. */
export const recordPath = (record: {
  readonly kind: "articles" | "backlinks"
  readonly account: number
  readonly site: number
  readonly index: number
}): ReadonlyArray<PropertyKey> => ["accounts", record.account, "sites", record.site, record.kind, record.index]

/**
 * The article as stored: its body in canonical form (as the sanitiser serialises it), with its word count and
 * protected links; refused, naming the body, when it holds disallowed HTML or is over a bound (characters, elements,
 * depth).
 */
export const prepareArticle = (
  article: ImportArticle,
  path: ReadonlyArray<PropertyKey>
): Either.Either<PreparedArticle, ImportRefused> => {
  const clean = sanitize(article.body)
  return clean._tag === "Disallowed"
    ? Either.left(
        refused([...path, "body"], clean.limit === undefined ? `disallowed HTML: ${clean.construct}` : clean.construct)
      )
    : Either.right({
        ...article,
        body: clean.html,
        word_count: clean.wordCount,
        body_text: clean.text,
        protected_links: clean.protectedLinks
      })
}
