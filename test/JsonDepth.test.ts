// @tags: unit runtime
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { jsonDepthExceeds } from "../src/Http/JsonDepth.js"
import { sized } from "./support/TestSize.js"

/** The reference: the nesting depth of a parsed value, by recursion (fine at the depths generated here). */
const depthOf = (value: unknown): number => {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf))
  if (value !== null && typeof value === "object") return 1 + Math.max(0, ...Object.values(value).map(depthOf))
  return 0
}

/** Characters that a scanner could mistake for structure, inside keys and string values. */
const trickyString = fc.string({ unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", " ", "\n", "/") })

/** Any JSON value, nested up to `layers` more levels by wrapping it in arrays and objects with siblings. */
const nestedValue = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.tuple(fc.boolean(), trickyString, fc.jsonValue({ maxDepth: 2 })), { maxLength: 90, size: "max" })
  )
  .map(([inner, layers]) =>
    layers.reduce<unknown>(
      (value, [asArray, key, sibling]) => (asArray ? [sibling, value] : { [key]: value, [`${key}_`]: sibling }),
      inner
    )
  )

/** A JSON string literal written with escapes JSON.stringify never produces: `\/`, `\u0022`, `\u005C`, ... */
const handWrittenString = fc
  .array(fc.constantFrom("a", "[", "{", "]", "}", '\\"', "\\\\", "\\/", "\\n", "\\u0022", "\\u005C", "\\u005b"), {
    maxLength: 12
  })
  .map((pieces) => `"${pieces.join("")}"`)

/** JSON text of `value` as written by people or other clients: compact, indented, with escapes. */
const textOf = (value: unknown, indent: number) => JSON.stringify(value, null, indent)

describe("jsonDepthExceeds", () => {
  it("agrees with the depth of the parsed value, for any JSON and any limit", () => {
    fc.assert(
      fc.property(nestedValue, fc.integer({ min: 0, max: 100 }), fc.constantFrom(0, 2), (value, max, indent) => {
        const text = textOf(value, indent)
        assert.strictEqual(jsonDepthExceeds(text, max), depthOf(JSON.parse(text)) > max, text.slice(0, 200))
      }),
      { numRuns: sized(1000, 250) }
    )
  })

  it("is not misled by brackets and quotes inside strings, however they are escaped", () => {
    // Text and depth are built together: the depth as written (a duplicate key, which JSON.parse keeps only once,
    // still counts), and JSON.parse only confirms that the text is JSON.
    interface Written {
      readonly text: string
      readonly depth: number
    }
    const deepest = (items: ReadonlyArray<Written>) => 1 + Math.max(0, ...items.map((item) => item.depth))
    const written = fc.letrec<{ value: Written }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        handWrittenString.map((text) => ({ text, depth: 0 })),
        fc
          .array(tie("value"), { maxLength: 3 })
          .map((items) => ({ text: `[${items.map((item) => item.text).join(",")}]`, depth: deepest(items) })),
        fc.array(fc.tuple(handWrittenString, tie("value")), { maxLength: 3 }).map((entries) => ({
          text: `{${entries.map(([key, item]) => `${key}:${item.text}`).join(",")}}`,
          depth: deepest(entries.map(([, item]) => item))
        }))
      )
    })).value
    fc.assert(
      fc.property(written, fc.integer({ min: 0, max: 6 }), ({ text, depth }, max) => {
        JSON.parse(text)
        assert.strictEqual(jsonDepthExceeds(text, max), depth > max, text)
      }),
      { numRuns: sized(2000, 400) }
    )
  })

  it("counts arrays and objects alike, and scalars as no level", () => {
    assert.isFalse(jsonDepthExceeds('"just a string with [[[ and {{{"', 0))
    assert.isFalse(jsonDepthExceeds("42", 0))
    assert.isTrue(jsonDepthExceeds("[]", 0))
    assert.isFalse(jsonDepthExceeds("[]", 1))
    assert.isTrue(jsonDepthExceeds('{"a":[{"b":[]}]}', 3))
    assert.isFalse(jsonDepthExceeds('{"a":[{"b":[]}]}', 4))
    assert.isFalse(jsonDepthExceeds('["\\\\", "\\"[[[", {"k\\"{": "]]"}]', 2))
  })

  it("64 levels are allowed at a limit of 64; 65 are not", () => {
    const levels = (n: number) => `{"replacements":${"[".repeat(n - 1)}${"]".repeat(n - 1)}}`
    assert.isFalse(jsonDepthExceeds(levels(64), 64))
    assert.isTrue(jsonDepthExceeds(levels(65), 64))
  })

  it("answers for 100,000 levels, the body that once crashed the error formatter", () => {
    const text = `{"replacements":${"[".repeat(100_000)}${"]".repeat(100_000)}}`
    assert.isTrue(jsonDepthExceeds(text, 64))
    assert.isFalse(jsonDepthExceeds(text, 100_001))
  })

  it("answers for text that is not JSON, without throwing", () => {
    assert.isFalse(jsonDepthExceeds('{"unterminated": "[[[[', 2))
    assert.isTrue(jsonDepthExceeds("[[[[ not json", 2))
    assert.isFalse(jsonDepthExceeds("]]]]", 0))
    assert.isFalse(jsonDepthExceeds("", 0))
  })
})
