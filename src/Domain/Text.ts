import { Schema } from "effect"
import { CONTROL_CHARACTERS, codePointName, firstControl } from "./Controls.js"

/** The JSON Schema pattern of text without NUL. */
export const NUL_FREE_PATTERN = "^[^\\u0000]*$"

/** The decode message of a string that holds a NUL; the 422 names the field before it. */
export const NUL_MESSAGE = "must not contain NUL (U+0000)"

/**
 * Refuses strings that contain NUL (U+0000). PostgreSQL `text` cannot hold it, so without this check a NUL in any
 * request string reaches the database and fails there (a 500); with it, the request is a 422 `validation_error`
 * naming the field. The OpenAPI document and the agent tools' input schemas show it as a `pattern`.
 *
 * Put it first on a string schema, before bounds and formats, so that the NUL is what the message names:
 * `noNul(Schema.String).pipe(maxLength(500))`, or start from `Text`.
 */
export const noNul = <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(
    Schema.filter((s) => !s.includes("\u0000"), {
      message: () => NUL_MESSAGE,
      jsonSchema: { pattern: NUL_FREE_PATTERN }
    })
  )

/** Unicode text without NUL: the base of every string a request carries (fields, query parameters). */
export const Text = noNul(Schema.String)

/** The JSON Schema pattern of one line of text: no control character (see Controls.ts), NUL included. */
export const ONE_LINE_PATTERN = `^[^${CONTROL_CHARACTERS}]*$`

/** The decode message of one-line text that holds a control character other than NUL; names the character. */
export const oneLineMessage = (control: string) =>
  `must be one line of text without control characters (found ${codePointName(control)})`

/** Why `text` is not one line of text (the decode message), or undefined when it is. */
export const oneLineProblem = (text: string): string | undefined => {
  const control = firstControl(text)
  if (control === undefined) return undefined
  return control === "\u0000" ? NUL_MESSAGE : oneLineMessage(control)
}

/**
 * One line of text a person or a client names something with (a title, a reason, a meta description, a key's or an
 * assistant's name): `Text` without any other control character either (line breaks, ESC, BEL, C1) and without the
 * bidirectional controls, which would make it read other than it is in a page or a log. Refused with a 422
 * `validation_error` naming the field and the character found; the document and the tools show it as a `pattern`.
 * An article body is not one line: it keeps what the sanitiser allows.
 */
export const OneLine = Schema.String.pipe(
  Schema.filter((s) => oneLineProblem(s) ?? true, { jsonSchema: { pattern: ONE_LINE_PATTERN } })
)

/**
 * `OneLine` for text that is stored trimmed (a title): the white space around it (a tab, a line break) is trimmed,
 * not refused; what is left must be one line.
 */
export const OneLineOnceTrimmed = Schema.String.pipe(
  Schema.filter((s) => oneLineProblem(s.trim()) ?? true, {
    jsonSchema: { pattern: `^\\s*[^${CONTROL_CHARACTERS}]*\\s*$` }
  })
)
