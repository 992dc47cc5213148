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

const expectation = /^Expected (.+), actual (.+)$/s
const literal = /^(".*"|-?\d+(\.\d+)?|true|false|null)$/s

const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) =>
  a.length === b.length && a.every((key, i) => key === b[i])

/**
 * What the issues about one field say. A value outside a set of allowed values fails once per allowed value
 * (`Expected "draft", actual "live"`, `Expected "scheduled", …`): said as one message that lists them all.
 */
const messageOf = (issues: ReadonlyArray<DecodeIssue>) => {
  const first = issues[0]!
  const expected = issues.map((issue) => expectation.exec(issue.message))
  if (expected.length < 2 || expected.some((match) => match === null)) return first.message
  const matches = expected as ReadonlyArray<RegExpExecArray>
  // An optional field also "expects" undefined; that is not a value to send.
  const allowed = matches.map((match) => match[1]!).filter((value) => value !== "undefined")
  if (allowed.length === 0 || !allowed.every((value) => literal.test(value))) return first.message
  return `must be one of ${allowed.join(", ")}; got ${matches[0]![2]}`
}

/** The first decode issue as a 422 `validation_error` naming the field, with `limit` when a bound was exceeded. */
export const fromDecodeIssues = (issues: ReadonlyArray<DecodeIssue>): ValidationError => {
  const first = issues[0]
  if (first === undefined) return new ValidationError({ message: "The request is not valid." })
  const where = first.path.length === 0 ? "request" : first.path.map(String).join(".")
  const limit = limitOf(first.message)
  return new ValidationError({
    message: truncate(`${where}: ${messageOf(issues.filter((issue) => samePath(issue.path, first.path)))}`),
    ...(limit === undefined ? {} : { limit })
  })
}

/** A schema decode failure as the same 422 the HTTP interface answers. */
export const fromParseError = (error: ParseResult.ParseError): ValidationError =>
  fromDecodeIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
