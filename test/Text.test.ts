// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Either, JSONSchema, Schema } from "effect"
import fc from "fast-check"
import { maxLength } from "../src/Domain/Bounds.js"
import { fromParseError } from "../src/Domain/DecodeIssues.js"
import { noNul, OneLine, Text } from "../src/Domain/Text.js"
import { userText, userTextOr, visibleControls } from "../src/Ui/Markup.js"

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

/** A string schema's JSON Schema has a pattern that accepts exactly what the schema decodes, for 500 of `strings`. */
const assertPatternDecodes = (schema: Schema.Schema<string>, strings: fc.Arbitrary<string>) => {
  const document = JSONSchema.make(schema) as {
    readonly type?: string
    readonly pattern?: string
    readonly allOf?: unknown
  }
  assert.isString(document.pattern)
  const pattern = new RegExp(document.pattern!, "u")
  fc.assert(
    fc.property(strings, (s) => {
      assert.strictEqual(pattern.test(s), Either.isRight(Schema.decodeUnknownEither(schema)(s)))
    }),
    { numRuns: 500 }
  )
  return document
}

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
    const document = assertPatternDecodes(Text, textWithNuls)
    assert.strictEqual(document.type, "string")
  })
})

/** Strings made of ordinary characters, the controls a one-line field refuses, and their neighbours it keeps. */
const textWithControls = fc.string({
  unit: fc.constantFrom(
    "a",
    "é",
    " ",
    "\u{1F600}",
    "\u00a0",
    "\u200f",
    "\u2029",
    "\u2069",
    "\u206a",
    "\u202a",
    "\u202e",
    "\u202f",
    "\u0000",
    "\t",
    "\n",
    "\r",
    "\u001b",
    "\u0007",
    "\u007f",
    "\u0085",
    "\u009f",
    "\u00a0"
  )
})
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a one-line field refuses, written out
const controls = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u

class LinePayload extends Schema.Class<LinePayload>("LinePayload")({
  reason: Schema.optional(OneLine.pipe(maxLength(10)))
}) {}

describe("OneLine: one line of text, without control characters", () => {
  it("decodes exactly the strings without C0, C1 and bidirectional controls", () => {
    fc.assert(
      fc.property(textWithControls, (s) => {
        assert.strictEqual(Either.isRight(Schema.decodeUnknownEither(OneLine)(s)), !controls.test(s), JSON.stringify(s))
      }),
      { numRuns: 1000 }
    )
  })

  it("keeps emoji, accents, no-break spaces and the marks beside the refused ranges", () => {
    for (const s of ["", "plain", "caf\u00e9 \u{1F600}", "a\u00a0b", "\u200f\u200e", "\u2029", "\u202f", "\u206a"]) {
      assert.deepStrictEqual(Schema.decodeUnknownEither(OneLine)(s), Either.right(s))
    }
  })

  it("a control character is a validation_error naming the field and the character", () => {
    for (const [input, found] of [
      ["\u202Eexe.txt\u202C fixed typo", "U+202E"],
      ["title\u001b[31m", "U+001B"],
      ["ring\u0007", "U+0007"],
      ["two\r\nlines", "U+000D"],
      ["c1\u0085", "U+0085"],
      ["\u2066isolate", "U+2066"]
    ] as const) {
      const error = validationErrorOf(LinePayload, { reason: input })
      assert.strictEqual(error?._tag, "ValidationError")
      assert.strictEqual(
        error?.message,
        `reason: must be one line of text without control characters (found ${found})`,
        JSON.stringify(input)
      )
    }
  })

  it("a NUL is named as it is in any text; a huge value is not echoed", () => {
    assert.strictEqual(
      validationErrorOf(LinePayload, { reason: "a\u0000" })?.message,
      "reason: must not contain NUL (U+0000)"
    )
    const huge = validationErrorOf(LinePayload, { reason: `${"x".repeat(100_000)}\u202e` })
    assert.strictEqual(huge?.message, "reason: must be one line of text without control characters (found U+202E)")
  })

  it("documents itself as a JSON Schema pattern that accepts exactly what it decodes", () => {
    assert.isUndefined(assertPatternDecodes(OneLine, textWithControls).allOf)
  })
})

describe("userText: text a person supplied, as pages and cards show it", () => {
  it("writes each control character as a visible marker and leaves the rest as it is", () => {
    assert.strictEqual(visibleControls("\u202Eexe.txt\u202C fixed typo"), "⟨U+202E⟩exe.txt⟨U+202C⟩ fixed typo")
    assert.strictEqual(
      visibleControls("a\u001b[2Jb\u0007\r\n\u0085\u2066"),
      "a⟨U+001B⟩[2Jb⟨U+0007⟩⟨U+000D⟩⟨U+000A⟩⟨U+0085⟩⟨U+2066⟩"
    )
    assert.strictEqual(visibleControls("caf\u00e9 \u{1F600} \u200f"), "caf\u00e9 \u{1F600} \u200f")
  })

  it("leaves no control character behind, whatever the text", () => {
    fc.assert(
      fc.property(textWithControls, (s) => {
        const shown = visibleControls(s)
        assert.notMatch(shown, controls)
        assert.strictEqual(shown.replace(/⟨U\+[0-9A-F]{4}⟩/g, ""), s.replace(new RegExp(controls.source, "gu"), ""))
      }),
      { numRuns: 500 }
    )
  })

  it("escapes, makes controls visible and isolates the text in <bdi>", () => {
    assert.strictEqual(userText("\u202Ecod.exe <b>&").value, "<bdi>⟨U+202E⟩cod.exe &lt;b&gt;&amp;</bdi>")
    assert.strictEqual(userTextOr(null, "(none)").value, "(none)")
    assert.strictEqual(userTextOr("x", "(none)").value, "<bdi>x</bdi>")
  })
})
