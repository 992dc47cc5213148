import { Schema } from "effect"
import { atMostMessage } from "./Bounds.js"

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 100

/**
 * The highest page a list is asked for: past every list there is (a billion items at one a page), and an offset
 * PostgreSQL takes whatever `per_page` is.
 */
export const MAX_PAGE = 999_999_999

const PAGE_DESCRIPTION = "Page, from 1."
const PER_PAGE_DESCRIPTION = "Items per page."

/**
 * The one message for an integer parameter that is not a whole number within its range, however it is wrong (not
 * digits, a fraction, a sign, too small, sent twice): `must be a whole number from 1 to 100`. Only a number over a
 * bound that the contract reports with `limit` says `must be at most N` instead (see Bounds.ts).
 */
export const wholeNumberMessage = (minimum: number, maximum: number) =>
  `must be a whole number from ${minimum} to ${maximum}`

/** A whole number from `minimum` to `maximum`, every failure said by `wholeNumberMessage` (see `overMaximum`). */
export const WholeNumber = (minimum: number, maximum: number, overMaximum = wholeNumberMessage(minimum, maximum)) => {
  const message = () => wholeNumberMessage(minimum, maximum)
  return Schema.Number.pipe(
    Schema.int({ message }),
    Schema.greaterThanOrEqualTo(minimum, { message }),
    Schema.lessThanOrEqualTo(maximum, { message: () => overMaximum })
  )
}

const PageNumber = WholeNumber(1, MAX_PAGE)
/** Over 100 is said `must be at most 100`, which carries `limit: 100` (the contract's). */
const PerPage = WholeNumber(1, MAX_PER_PAGE, atMostMessage(MAX_PER_PAGE, ""))

/**
 * An integer as a query string writes it: ASCII digits only, without a leading zero, the rule ids follow (see
 * `PathId`). `0x10`, `1e2`, `+5`, `05`, ` 5` and `1.0` are refused rather than read as numbers.
 */
const INTEGER_DIGITS = /^(0|[1-9][0-9]*)$/

/**
 * An integer read from a query string (as `page`, `per_page` and `months` are): digits only, then `schema`'s own
 * checks, from `minimum` to `maximum`. Anything else, a value sent twice (an array) included, is said by
 * `wholeNumberMessage`, never in the schema library's words. `jsonSchema` is what the OpenAPI document and the agent
 * tools show for it: an integer with its bounds, not the string it arrives as.
 */
export const fromQuery = <A extends number, I, R>(
  schema: Schema.Schema<A, I, R>,
  jsonSchema: { readonly minimum: number; readonly maximum: number; readonly [key: string]: unknown }
) => {
  const message = () => wholeNumberMessage(jsonSchema.minimum, jsonSchema.maximum)
  const digits = Schema.String.annotations({ message }).pipe(Schema.pattern(INTEGER_DIGITS, { message }))
  const integer = Schema.transform(digits, Schema.Number, { strict: true, decode: Number, encode: String })
  return Schema.compose(integer, schema, { strict: false }).annotations({
    jsonSchema: { type: "integer", ...jsonSchema }
  })
}

/**
 * A page number as the web pages read it from their address: an integer written as every integer query parameter is,
 * from 1 to `max`; anything else is the first page (a page shows something rather than an error).
 */
export const pageNumberOf = (text: string | null | undefined, max: number): number => {
  const page = typeof text === "string" && INTEGER_DIGITS.test(text) ? Number(text) : 0
  return page >= 1 && page <= max ? page : 1
}

/** `page` and `per_page` query parameters of every list endpoint. */
export const PageQuery = {
  page: Schema.optionalWith(
    fromQuery(PageNumber, { minimum: 1, maximum: MAX_PAGE, default: 1, description: PAGE_DESCRIPTION }),
    { default: () => 1 }
  ),
  per_page: Schema.optionalWith(
    fromQuery(PerPage, {
      minimum: 1,
      maximum: MAX_PER_PAGE,
      default: DEFAULT_PER_PAGE,
      description: PER_PAGE_DESCRIPTION
    }),
    { default: () => DEFAULT_PER_PAGE }
  )
}

/** `page` and `per_page` as JSON numbers (the agent tools' arguments), with the same bounds and defaults. */
export const PageArgs = {
  page: Schema.optionalWith(PageNumber.annotations({ description: PAGE_DESCRIPTION }), { default: () => 1 }),
  per_page: Schema.optionalWith(PerPage.annotations({ description: PER_PAGE_DESCRIPTION }), {
    default: () => DEFAULT_PER_PAGE
  })
}

export interface Page {
  readonly page: number
  readonly per_page: number
}

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

export const PageMeta = Schema.Struct({
  page: Count.annotations({ description: "The page returned." }),
  per_page: Count.annotations({ description: "Items per page." }),
  total: Count.annotations({ description: "Number of items over all pages." }),
  last_page: Count.annotations({ description: "Number of the last page: max(1, ceil(total / per_page))." })
}).annotations({ identifier: "PageMeta", description: "Pagination of a list response." })
export type PageMeta = typeof PageMeta.Type

export const pageMeta = (page: Page, total: number): PageMeta => ({
  page: page.page,
  per_page: page.per_page,
  total,
  last_page: Math.max(1, Math.ceil(total / page.per_page))
})

export const offsetOf = (page: Page): number => (page.page - 1) * page.per_page

/** A list response: `data` and `meta`. */
export const ListResponse = <A, I, R>(item: Schema.Schema<A, I, R>, description: string) =>
  Schema.Struct({
    data: Schema.Array(item).annotations({ description }),
    meta: PageMeta
  })

/** A single-resource response: `data`. */
export const DataResponse = <A, I, R>(item: Schema.Schema<A, I, R>) => Schema.Struct({ data: item })
