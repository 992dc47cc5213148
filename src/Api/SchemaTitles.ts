type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Keywords whose value maps names (of properties, definitions) to schemas: a name there is never a keyword. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"])

/** Keywords whose value is data, not a schema: an example article keeps its `title`. */
const dataKeywords = new Set(["examples", "example", "default", "const", "enum"])

/**
 * A JSON Schema without its `title` keywords. The schema library names its refinements there (`positive`, `int`,
 * `maxLength(2000)`, `itemsCount(1)`), which means nothing to a reader of the OpenAPI document or to an assistant.
 * A property that is itself called `title` is kept.
 */
export const withoutSchemaTitles = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutSchemaTitles)
  if (!isObject(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title" && typeof value === "string") continue
    out[key] = dataKeywords.has(key)
      ? value
      : schemaMaps.has(key) && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, withoutSchemaTitles(schema)]))
        : withoutSchemaTitles(value)
  }
  return out
}
