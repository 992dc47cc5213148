import { Schema } from "effect"
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from "../Auth/Passwords.js"
import { ArticleStatus } from "../Domain/Article.js"
import { AnchorType, BacklinkCategory, BacklinkStatus } from "../Domain/Backlink.js"
import { atMostMessage } from "../Domain/Bounds.js"
import { isCalendarDate } from "../Domain/Dates.js"
import { GeographicScope } from "../Domain/Site.js"
import { oneLineProblem } from "../Domain/Text.js"
import { MAX_BODY_CHARACTERS } from "../Html/Bounds.js"

const rfc3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

/** Whether `s` is an RFC 3339 timestamp naming a real instant (`2026-02-30T…` and `25:00` are not). */
export const isRfc3339 = (s: string): boolean => {
  const match = rfc3339.exec(s)
  if (match === null || !isCalendarDate(match[1]!)) return false
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])]
  const [offsetHour, offsetMinute] = [Number(match[6] ?? 0), Number(match[7] ?? 0)]
  return hour < 24 && minute < 60 && second < 60 && offsetHour < 24 && offsetMinute < 60
}

const check = (predicate: (s: string) => boolean) => Schema.String.pipe(Schema.filter(predicate))

const Timestamp = check(isRfc3339)
const NonEmpty = check((s) => s.trim().length > 0)
const Email = check((s) => s.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s))
const Url = check((s) => s.length <= 2048 && /^https?:\/\/[^\s/?#]+\S*$/i.test(s))
const Language = check((s) => /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(s))
const Country = check((s) => /^[A-Z]{2}$/.test(s))
const Text = (maxLength: number) => check((s) => s.length <= maxLength)

const timestamp = "an RFC 3339 timestamp such as 2026-11-03T09:30:00Z"
const url = "an absolute http(s) URL of at most 2048 characters"
const text = "a string"
const oneOf = (literals: ReadonlyArray<string>) => `one of ${literals.join(", ")}`

// Each field names what it expects, so that the first problem reads `path: must be …` rather than the
// first branch of a union.
const expecting = (expected: string) => ({ message: () => ({ message: `must be ${expected}`, override: true }) })

const required = <A, I>(schema: Schema.Schema<A, I>, expected: string) => schema.annotations(expecting(expected))

/** An optional field: it may be left out or be null, and both store NULL. */
const optional = <A, I>(schema: Schema.Schema<A, I>, expected: string) =>
  Schema.optional(Schema.NullOr(schema).annotations(expecting(`${expected}, or null`)))

/**
 * One line of text (a title, a name): the shape checked first, as `expected` says; then, once it is a string, one
 * line without control characters (Domain/Text.ts), refused in the words the API uses, naming the character found.
 */
const oneLine = <A extends string | null, I>(schema: Schema.Schema<A, I>) =>
  schema.pipe(Schema.filter((s) => (s === null ? true : (oneLineProblem(s) ?? true))))

/** An optional field of one line: left out, null (both store NULL), or a string of one line. */
const optionalLine = <A extends string, I>(schema: Schema.Schema<A, I>, expected: string) =>
  Schema.optional(oneLine(Schema.NullOr(schema).annotations(expecting(`${expected}, or null`))))

const list = <A, I>(item: Schema.Schema<A, I>, expected: string) =>
  Schema.optionalWith(Schema.Array(item).annotations({ message: () => `must be ${expected}` }), { default: () => [] })

export const ImportArticle = Schema.Struct({
  title: optionalLine(Text(255), "a string of at most 255 characters"),
  url: required(Url, url),
  status: optional(ArticleStatus, oneOf(ArticleStatus.literals)),
  published_at: optional(Timestamp, timestamp),
  target_keyword: optionalLine(Schema.String, text),
  meta_description: optionalLine(Text(500), "a string of at most 500 characters"),
  featured_image_url: optional(Url, url),
  body: required(Schema.String, "an HTML string").pipe(
    Schema.filter((s) => s.length <= MAX_BODY_CHARACTERS, {
      message: () => atMostMessage(MAX_BODY_CHARACTERS, "characters; shorten it or split it into several articles")
    })
  )
}).annotations({ message: () => "must be an article object" })
export type ImportArticle = typeof ImportArticle.Type

export const ImportBacklink = Schema.Struct({
  acquired_at: optional(Timestamp, timestamp),
  source_domain: optionalLine(Schema.String, text),
  source_url: required(Url, url),
  target_url: required(Url, url),
  anchor_text: optionalLine(Schema.String, text),
  anchor_type: optional(AnchorType, oneOf(AnchorType.literals)),
  status: optional(BacklinkStatus, oneOf(BacklinkStatus.literals)),
  category: required(BacklinkCategory, oneOf(BacklinkCategory.literals))
}).annotations({ message: () => "must be a backlink object" })
export type ImportBacklink = typeof ImportBacklink.Type

export const ImportSite = Schema.Struct({
  name: optionalLine(Schema.String, text),
  website_url: required(Url, url),
  language: optional(Language, "a BCP 47 language tag such as en or en-GB"),
  country: optional(Country, "an ISO 3166-1 alpha-2 country code such as GB"),
  geographic_scope: optional(GeographicScope, oneOf(GeographicScope.literals)),
  industry: optionalLine(Schema.String, text),
  articles: list(ImportArticle, "an array of articles"),
  backlinks: list(ImportBacklink, "an array of backlinks")
}).annotations({ message: () => "must be a website object" })
export type ImportSite = typeof ImportSite.Type

export const ImportAccount = Schema.Struct({
  email: required(Email, "an e-mail address"),
  name: oneLine(required(NonEmpty, "a non-empty string")),
  password: optional(
    check((s) => passwordProblem(s) === undefined),
    `a string of ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`
  ),
  sites: list(ImportSite, "an array of websites")
}).annotations({ message: () => "must be an account object" })
export type ImportAccount = typeof ImportAccount.Type

/** The file `cbs import` reads: accounts with their websites, articles and backlinks (CONTRACT.md, "Operators"). */
export const ImportFile = Schema.Struct({
  accounts: Schema.Array(ImportAccount).annotations({ message: () => "must be an array of accounts" })
}).annotations({ message: () => 'must be an object such as { "accounts": [] }' })
export type ImportFile = typeof ImportFile.Type
/** The file as written, before decoding: optional fields may be absent. */
export type ImportFileJson = typeof ImportFile.Encoded
