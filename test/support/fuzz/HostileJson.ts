import fc from "fast-check"
import { hostileNumber, hostileString, shortHostileString } from "./Hostile.js"

// JSON for the fuzz tests: well-formed with hostile values, malformed, nested deep, not UTF-8. Built as text, so
// that what is sent is exactly what a failure shows.

/** JSON text put into a generated value as it is: number tokens no JSON.stringify writes, deep nesting, escapes. */
class RawJson {
  constructor(readonly text: string) {}
  toString() {
    return this.text.length > 60 ? `${this.text.slice(0, 60)}… (${this.text.length} chars)` : this.text
  }
}

const nestingDepths = [2, 63, 64, 65, 256, 1000, 5000, 100_000]

/** JSON arrays and objects nested 2 to 100,000 deep (the contract refuses more than 64). */
export const deepJson: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(...nestingDepths), fc.constantFrom("array", "object", "mixed"))
  .map(([depth, kind]) => {
    if (kind === "array") return new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`)
    if (kind === "object") return new RawJson(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)
    return new RawJson(`${'[{"a":'.repeat(depth)}null${"}]".repeat(depth)}`)
  })

const rawTokens = [
  "1e999",
  "-1e999",
  "123456789012345678901234567890",
  "0.0000000000000000000000000001",
  "-0",
  "1E400",
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\/\\b\\f"',
  '"\\uFEFF"'
].map((text) => new RawJson(text))

/** Any JSON value of little depth whose strings and numbers are hostile, or deep nesting, or odd tokens. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom(...rawTokens) },
  { weight: 1, arbitrary: deepJson },
  {
    weight: 1,
    arbitrary: fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        shortHostileString,
        hostileNumber,
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.dictionary(shortHostileString, tie("value"), { maxKeys: 3 })
      )
    })).value
  }
)

/** JSON text of a generated value; `RawJson` parts are written as they are. */
export const toJsonText = (value: unknown): string => {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** Text that is not JSON, or is JSON of the wrong kind for a body: cut short, odd tokens, other syntaxes. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "[",
    '"',
    "}",
    "{}}",
    '{"a":}',
    '{"a" 1}',
    "{'a':1}",
    '{"a":1,}',
    "[1,]",
    '{"a":"\\u12"}',
    '{"a":"\\x41"}',
    '{"a":"\n"}',
    "NaN",
    "Infinity",
    "undefined",
    "null",
    "0",
    "true",
    '"just a string"',
    "[]",
    '{"a":1} trailing',
    "\ufeff{}",
    "/* comment */ {}",
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    "a=1&b=2",
    "<xml/>"
  ),
  fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([value, cut]) => {
    const text = JSON.stringify(value)
    return text.slice(0, text.length === 0 ? 0 : cut % text.length)
  })
)

/** Bytes that are not UTF-8, inside an otherwise well-formed JSON object. */
export const notUtf8Json = (field: string): fc.Arbitrary<Uint8Array> =>
  fc
    .constantFrom([0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80])
    .map((bad) =>
      Buffer.concat([Buffer.from(`{${JSON.stringify(field)}:"a`), Buffer.from(bad), Buffer.from('b"}', "utf8")])
    )
