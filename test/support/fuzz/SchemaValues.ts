import fc from "fast-check"
import { hostileNumber, hostileString, longString, rarely, shortHostileString, usually } from "./Hostile.js"
import { hostileJson } from "./HostileJson.js"

/** A JSON Schema node, as the OpenAPI document and the MCP tool list carry them. */
export type JsonSchema = { readonly [keyword: string]: unknown }

export const isSchema = (u: unknown): u is JsonSchema => typeof u === "object" && u !== null && !Array.isArray(u)

const numberOr = (u: unknown, fallback: number) => (typeof u === "number" ? u : fallback)

/** Calendar dates, right and wrong: every year 0–10000, months 0–13, days 0–32, and other date-like text. */
const dateText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10))
  },
  fc
    .record({
      year: fc.integer({ min: 0, max: 10_000 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 })
    })
    .map(
      ({ year, month, day }) =>
        `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
    ),
  fc.constantFrom(
    "2026-02-30",
    "2026-1-1",
    "+002026-01-01",
    "2026-01-01T00:00:00Z",
    "٢٠٢٦-٠١-٠١",
    "2026-10",
    "0000-01-01",
    "9999-12-31",
    "-2026-01-01"
  )
)

/** Values for `period`-like text: the named periods, months and days (see `dateText`). */
const periodText = fc.oneof(
  fc.constantFrom("this_month", "last_month", "last_30_days", "THIS_MONTH", "0050-03", "9999-12", "0000-00", "2026-13"),
  dateText,
  dateText.map((date) => date.slice(0, 7))
)

const uriText = fc.oneof(
  fc.constantFrom(
    "https://img.example/a.png",
    "http://127.0.0.1:1/x",
    "https://example.com/?q=%00",
    "ftp://img.example/a.png",
    "javascript:alert(1)",
    "data:image/png;base64,AAAA",
    "//img.example/a.png",
    "https://",
    "https://ü.example/ä.png",
    "https://[::1]:99999/",
    "https://a.example/\u0000",
    `https://img.example/${"a".repeat(2030)}`,
    `https://img.example/${"a".repeat(2100)}`
  ),
  fc.webUrl()
)

/** Text for a string schema: mostly plausible (by format, within bounds, examples), at and past its bounds, hostile. */
const stringFor = (node: JsonSchema): fc.Arbitrary<string> => {
  const min = numberOr(node["minLength"], 0)
  const max = numberOr(node["maxLength"], 300)
  const lengths = [min - 1, min, max, max + 1].filter((n) => n >= 0)
  const examples = Array.isArray(node["examples"]) ? node["examples"].filter((e) => typeof e === "string") : []
  const format = node["format"]
  const plausible: Array<fc.Arbitrary<string>> = [
    fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, 40) })
  ]
  if (format === "date") plausible.push(dateText, dateText, dateText)
  if (format === "uri") plausible.push(uriText, uriText, uriText)
  if (node["contentEncoding"] === "base64") {
    plausible.push(
      fc.constantFrom(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "R0lGODlhAQABAAAAACw=",
        "not base64!",
        "QUJD\nREVG",
        "===="
      )
    )
  }
  if (examples.length > 0) plausible.push(fc.constantFrom(...examples), periodText, periodText)
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...plausible) },
    { weight: 1, arbitrary: fc.constantFrom(...lengths).map((n) => "t".repeat(n)) },
    { weight: 1, arbitrary: hostileString }
  )
}

const integerFor = (node: JsonSchema): fc.Arbitrary<number> => {
  const exclusive = node["exclusiveMinimum"]
  const min = typeof exclusive === "number" ? exclusive + 1 : numberOr(node["minimum"], -5)
  const max = Math.min(numberOr(node["maximum"], 1000), 1000)
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min - 1, min, max, max + 1) },
    { weight: 1, arbitrary: hostileNumber }
  )
}

/**
 * Values for a JSON Schema (references resolved by `resolve`): mostly of the schema's shape, at and just past its
 * bounds; any value sometimes replaced by a hostile one (any type, deep nesting, odd tokens); objects sometimes with
 * a field the schema does not define. `favour` gives values to prefer for named properties (the fixtures' ids).
 */
export const valuesOf = (
  schema: JsonSchema,
  resolve: (ref: string) => JsonSchema,
  favour: Readonly<Record<string, fc.Arbitrary<unknown>>> = {}
): fc.Arbitrary<unknown> => {
  const node = (at: JsonSchema, name: string | undefined): fc.Arbitrary<unknown> => {
    const ref = at["$ref"]
    if (typeof ref === "string") return node(resolve(ref), name)
    const favoured = name === undefined ? undefined : favour[name]
    const shaped = favoured === undefined ? shapeOf(at) : fc.oneof({ weight: 3, arbitrary: favoured }, shapeOf(at))
    return fc.oneof({ weight: 20, arbitrary: shaped }, { weight: 1, arbitrary: hostileJson })
  }
  const shapeOf = (at: JsonSchema): fc.Arbitrary<unknown> => {
    if (Array.isArray(at["enum"]) && at["enum"].length > 0) {
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...at["enum"]) }, shortHostileString)
    }
    const members = at["anyOf"] ?? at["oneOf"]
    if (Array.isArray(members) && members.length > 0) {
      return fc.oneof(...members.filter(isSchema).map((member) => node(member, undefined)))
    }
    const type = Array.isArray(at["type"]) ? at["type"][0] : at["type"]
    switch (type) {
      case "object": {
        const properties = isSchema(at["properties"]) ? at["properties"] : {}
        const required = new Set(Array.isArray(at["required"]) ? at["required"] : [])
        const fields = Object.entries(properties)
          .filter((entry): entry is [string, JsonSchema] => isSchema(entry[1]))
          .map(([name, sub]) =>
            usually(
              required.has(name) ? 12 : 2,
              node(sub, name).map((value) => [name, value] as const)
            )
          )
        const extra = rarely(12, fc.tuple(shortHostileString, hostileJson))
        return fc
          .tuple(fc.tuple(...fields), extra)
          .map(([present, added]) =>
            Object.fromEntries([
              ...present.filter((field) => field !== undefined),
              ...(added === undefined ? [] : [added])
            ])
          )
      }
      case "array": {
        const items = isSchema(at["items"]) ? at["items"] : {}
        const maxItems = Math.min(numberOr(at["maxItems"], 4) + 1, 60)
        return fc.oneof(
          { weight: 4, arbitrary: fc.array(node(items, undefined), { maxLength: Math.min(maxItems, 4) }) },
          { weight: 1, arbitrary: fc.array(node(items, undefined), { minLength: maxItems, maxLength: maxItems }) }
        )
      }
      case "string":
        return stringFor(at)
      case "integer":
        return integerFor(at)
      case "number":
        return fc.oneof(integerFor(at), hostileNumber)
      case "boolean":
        return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, fc.constantFrom("true", 1, 0))
      case "null":
        return fc.constant(null)
      default:
        return fc.oneof(hostileJson, longString)
    }
  }
  return node(schema, undefined)
}
