import { type ParseError, parse, printParseErrorCode } from "jsonc-parser"

/**
 * The message of a 500. A request that may change something (any method but GET and HEAD) failed at a point where
 * its change may or may not have been saved (a commit whose answer was lost, say), so the message says so, and how
 * to retry safely.
 */
export const internalErrorMessage = (requestId: string, method: string) =>
  method === "GET" || method === "HEAD"
    ? `Something went wrong on our side. Request id: ${requestId}.`
    : `Something went wrong on our side, and whether the change was saved is not known. Retry with the same Idempotency-Key to have it applied at most once (or read the resource first). Request id: ${requestId}.`

/** What was wrong where a JSON body stopped being JSON, in words for whoever wrote it, by the parser's error names. */
const JSON_PROBLEMS: Readonly<Record<string, string>> = {
  InvalidSymbol: "an unexpected character",
  InvalidNumberFormat: "a malformed number",
  PropertyNameExpected: "a property name in double quotes was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "':' was expected",
  CommaExpected: "',' was expected",
  CloseBraceExpected: "'}' was expected",
  CloseBracketExpected: "']' was expected",
  EndOfFileExpected: "nothing may follow the JSON value",
  InvalidCommentToken: "JSON has no comments",
  UnexpectedEndOfComment: "JSON has no comments",
  UnexpectedEndOfString: "a string that is not closed on its line (write a line break as \\n)",
  UnexpectedEndOfNumber: "an unfinished number",
  InvalidUnicode: "a malformed \\u escape",
  InvalidEscapeCharacter: "an escape that JSON does not have",
  InvalidCharacter: "a control character inside a string (escape it)"
}

/** The line and column (both from 1) of the character at `offset` in `text`. */
const lineAndColumn = (text: string, offset: number) => {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf("\n") + 1
  return { line: before.split("\n").length, column: offset - lineStart + 1 }
}

/**
 * The message of a 422 for a request body that is not JSON: what is wrong and where (`… at line 1, column 7`), found
 * by a parser that reports positions (JSON.parse, on this Node, does not always). Every door answers malformed JSON
 * with this one message.
 */
export const malformedJsonMessage = (text: string) => {
  if (text.trim() === "") return "The request body is empty; this endpoint takes a JSON body."
  const errors: Array<ParseError> = []
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  const first = errors[0]
  if (first === undefined) return "The request body is not valid JSON."
  const { line, column } = lineAndColumn(text, first.offset)
  const problem = JSON_PROBLEMS[printParseErrorCode(first.error)] ?? "something that is not JSON"
  return `The request body is not valid JSON: ${problem} at line ${line}, column ${column}.`
}
