// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Either, JSONSchema, Schema } from "effect"
import fc from "fast-check"
import { maxLength } from "../src/Domain/Bounds.js"
import { fromParseError } from "../src/Domain/DecodeIssues.js"
import { noNul, Text } from "../src/Domain/Text.js"

/** The 422 a request decoded with `schema` answers for `input`, or undefined when it decodes. */
const validationErrorOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(input, { errors: "all", onExcessProperty: "error" })
  return Either.isLeft(result) ? fromParseError(result.left) : undefined
}

class Payload extends Schema.Class<Payload>("Payload")({
  title: Schema.optional(noNul(Schema.String).pipe(maxLength(10))),
  replacements: Schema.optional(
    Schema.Array(Schema.Struct({ find: Text, replace: Schema.optional(Text), all: Schema.optional(Schema.Boolean) }))
  )
}) {}

/** Strings in which NUL comes up often, next to other control characters (which are fine). */
const textWithNuls = fc.string({ unit: fc.constantFrom("a", "é", "\u0000", "\u0001", "\n", "\u{1F600}", "\uFFFD") })

describe("Text: Unicode text without NUL", () => {
  it("decodes exactly the strings without U+0000", () => {
    fc.assert(
      fc.property(textWithNuls, (s) => {
        assert.strictEqual(
          Either.isRight(Schema.decodeUnknownEither(Text)(s)),
          !s.includes("\u0000"),
          JSON.stringify(s)
        )
      }),
      { numRuns: 500 }
    )
  })

  it("keeps text with other control characters, emoji and the empty string as it is", () => {
    for (const s of ["", "plain", "tab\tand\r\nnewlines", "\u0001\u001f\u007f", "\u{1F600} ☃", "\uFFFD"]) {
      assert.deepStrictEqual(Schema.decodeUnknownEither(Text)(s), Either.right(s))
    }
  })

  it("a NUL in a field is a validation_error whose message names the field", () => {
    const error = validationErrorOf(Payload, { title: "a\u0000b" })
    assert.strictEqual(error?._tag, "ValidationError")
    assert.strictEqual(error?.message, "title: must not contain NUL (U+0000)")
    assert.isUndefined(error?.limit)
  })

  it("a NUL deep in a body is named by its full path", () => {
    const error = validationErrorOf(Payload, {
      replacements: [{ find: "fine" }, { find: "also fine", replace: "\u0000" }]
    })
    assert.strictEqual(error?.message, "replacements.1.replace: must not contain NUL (U+0000)")
  })

  it("applied first, the NUL is reported before a bound; the bound still answers with its limit", () => {
    assert.strictEqual(
      validationErrorOf(Payload, { title: "\u0000".repeat(20) })?.message,
      "title: must not contain NUL (U+0000)"
    )
    const tooLong = validationErrorOf(Payload, { title: "x".repeat(11) })
    assert.strictEqual(tooLong?.message, "title: must be at most 10 characters")
    assert.strictEqual(tooLong?.limit, 10)
  })

  it("refines any string schema and keeps its type (a branded one stays branded)", () => {
    const Slug = noNul(Schema.String.pipe(Schema.brand("Slug")))
    const decoded: typeof Slug.Type = Schema.decodeUnknownSync(Slug)("abc")
    assert.strictEqual(decoded, "abc")
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Slug)("a\u0000")))
  })

  it("documents itself as a JSON Schema pattern that accepts exactly what it decodes", () => {
    const document = JSONSchema.make(Text) as { readonly type?: string; readonly pattern?: string }
    assert.strictEqual(document.type, "string")
    assert.isString(document.pattern)
    const pattern = new RegExp(document.pattern!, "u")
    fc.assert(
      fc.property(textWithNuls, (s) => {
        assert.strictEqual(pattern.test(s), Either.isRight(Schema.decodeUnknownEither(Text)(s)))
      }),
      { numRuns: 500 }
    )
  })
})
