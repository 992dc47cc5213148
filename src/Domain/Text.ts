import { Schema } from "effect"

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
