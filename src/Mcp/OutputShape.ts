export type JsonSchema = Record<string, unknown>

export const isObject = (u: unknown): u is JsonSchema => typeof u === "object" && u !== null && !Array.isArray(u)

const isNull = (u: unknown) => isObject(u) && u["type"] === "null" && Object.keys(u).length === 1

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The member of a nullable shape (`anyOf` a type and null) that is not null; none when `shape` is not nullable. */
const nonNull = (shape: JsonSchema): JsonSchema | undefined => {
  const anyOf = shape["anyOf"]
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || !anyOf.some(isNull)) return undefined
  const other = anyOf.find((member) => !isNull(member))
  return isObject(other) ? other : undefined
}

const isObjectShape = (shape: JsonSchema) => shape["type"] === "object" && isObject(shape["properties"])

const enumOf = (shape: JsonSchema) =>
  shape["type"] === "string" && Array.isArray(shape["enum"]) && Object.keys(shape).length === 2
    ? (shape["enum"] as ReadonlyArray<unknown>)
    : undefined

/**
 * One shape that admits what either shape admits: objects merge their properties (a property both have, merged
 * too), string enums their values, nullable shapes stay nullable; other different shapes stay `anyOf` both.
 */
const merge = (a: JsonSchema, b: JsonSchema): JsonSchema => {
  if (same(a, b)) return a
  const [aValue, bValue] = [nonNull(a), nonNull(b)]
  if (aValue !== undefined || bValue !== undefined || isNull(a) || isNull(b)) {
    const values = [aValue ?? (isNull(a) ? undefined : a), bValue ?? (isNull(b) ? undefined : b)].filter(
      (value): value is JsonSchema => value !== undefined
    )
    const value = values.length === 2 ? merge(values[0]!, values[1]!) : values[0]
    return value === undefined ? { type: "null" } : { anyOf: [value, { type: "null" }] }
  }
  if (isObjectShape(a) && isObjectShape(b)) {
    const properties: Record<string, JsonSchema> = { ...(a["properties"] as Record<string, JsonSchema>) }
    for (const [name, shape] of Object.entries(b["properties"] as Record<string, JsonSchema>)) {
      const mine = properties[name]
      properties[name] = mine === undefined ? shape : merge(mine, shape)
    }
    return { ...a, ...b, properties }
  }
  const [aEnum, bEnum] = [enumOf(a), enumOf(b)]
  if (aEnum !== undefined && bEnum !== undefined) return { type: "string", enum: [...new Set([...aEnum, ...bEnum])] }
  const members = [...(Array.isArray(a["anyOf"]) ? a["anyOf"] : [a]), ...(Array.isArray(b["anyOf"]) ? b["anyOf"] : [b])]
  return { anyOf: members.filter((member, i) => members.findIndex((other) => same(member, other)) === i) }
}

/**
 * An output schema as the tool list carries it: the shape (types, enums, nullability) without descriptions and
 * bounds. The answer is the endpoint's, documented in full in the OpenAPI document; the list an assistant reads
 * stays short. A nullable field stays `anyOf` a type and null, each branch with a single `type`: clients that map
 * tool schemas onto a single-type dialect (Gemini's function declarations) cannot read `type: [T, "null"]`. A union
 * of objects (the kinds of event) is one object with every member's properties, which admits each of them: listing
 * every member would repeat their common fields once per member.
 */
export const outputShape = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(outputShape)
  if (!isObject(node)) return node
  const anyOf = node["anyOf"]
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNull)) {
    const other = anyOf.find((member) => !isNull(member))
    return { anyOf: [outputShape(other), { type: "null" }] }
  }
  if (Array.isArray(anyOf) && anyOf.length > 1) {
    const members = anyOf.map(outputShape).filter(isObject)
    if (members.length === anyOf.length && members.every(isObjectShape)) return members.reduce(merge)
  }
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(node)) {
    if (["description", "required", "additionalProperties", "minimum", "exclusiveMinimum", "format"].includes(key)) {
      continue
    }
    out[key] =
      key === "properties" && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, v]) => [name, outputShape(v)]))
        : outputShape(value)
  }
  return out
}
