import { ParseResult } from "effect"
import { limitOf } from "./Bounds.js"
import { ValidationError } from "./Errors.js"

export interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const MAX_MESSAGE = 300

/** Decode messages can echo the offending value (which may be megabytes): keep them short. */
const truncate = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text)

/** The first decode issue as a 422 `validation_error` naming the field, with `limit` when a bound was exceeded. */
export const fromDecodeIssues = (issues: ReadonlyArray<DecodeIssue>): ValidationError => {
  const first = issues[0]
  if (first === undefined) return new ValidationError({ message: "The request is not valid." })
  const where = first.path.length === 0 ? "request" : first.path.map(String).join(".")
  const limit = limitOf(first.message)
  return new ValidationError({
    message: truncate(`${where}: ${first.message}`),
    ...(limit === undefined ? {} : { limit })
  })
}

/** A schema decode failure as the same 422 the HTTP interface answers. */
export const fromParseError = (error: ParseResult.ParseError): ValidationError =>
  fromDecodeIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
