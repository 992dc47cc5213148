import { HttpApi, type HttpApiGroup, HttpApiSchema, type HttpMethod } from "@effect/platform"
import { Context, JSONSchema, Option, type Schema, type SchemaAST } from "effect"
import { AgentTool, type AgentToolSpec, type AgentToolVariant, type CardName, isVariant } from "../Api/AgentTool.js"
import { NUL_FREE_PATTERN } from "../Domain/Text.js"
import { isObject, type JsonSchema, outputShape } from "./OutputShape.js"

/** How a tool's arguments become a request to one endpoint. */
export interface ToolRoute {
  readonly method: HttpMethod.HttpMethod
  readonly path: string
  /** This endpoint answers the calls that carry this argument; the route without one answers the rest. */
  readonly when: string | undefined
  readonly pathArgs: ReadonlyArray<{ readonly param: string; readonly arg: string }>
  readonly queryArgs: ReadonlyArray<string>
  readonly headerArgs: ReadonlyArray<{ readonly header: string; readonly arg: string }>
  readonly hasPayload: boolean
  /** Multipart file fields, which a tool takes base64-encoded. */
  readonly fileArgs: ReadonlyArray<string>
}

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly annotations: {
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
  readonly inputSchema: JsonSchema
  /** The optional arguments whose `null` means "not given" (see `orNull`). */
  readonly absentWhenNull: ReadonlyArray<string>
  readonly outputSchema: JsonSchema
  readonly routes: ReadonlyArray<ToolRoute>
  /** The card (MCP Apps) an app shows the result in. */
  readonly card: CardName | undefined
}

interface Part {
  readonly properties: Record<string, JsonSchema>
  readonly required: ReadonlyArray<string>
}

/** The schemas a keyword of `json` holds by name (`properties`); none when it holds none. */
export const schemasAt = (json: JsonSchema, keyword: string): Record<string, JsonSchema> => {
  const value = json[keyword]
  if (!isObject(value)) return {}
  return Object.fromEntries(
    Object.entries(value).flatMap(
      ([name, schema]): Array<[string, JsonSchema]> => (isObject(schema) ? [[name, schema]] : [])
    )
  )
}

/** The names a keyword of `json` lists (`required`); none when it lists none. */
const namesAt = (json: JsonSchema, keyword: string): ReadonlyArray<string> => {
  const value = json[keyword]
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : []
}

/**
 * A JSON Schema as a tool shows it: references inlined, and no `title` keywords (the schema library names its
 * refinements there, e.g. `maxLength(2000)`, which means nothing to an assistant).
 */
export const toolSchema = (node: unknown, definitions: JsonSchema): unknown => {
  if (Array.isArray(node)) return node.map((item) => toolSchema(item, definitions))
  if (!isObject(node)) return node
  const ref = node["$ref"]
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    return toolSchema(definitions[ref.slice("#/$defs/".length)], definitions)
  }
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title" && typeof value === "string") continue
    // No text anywhere takes NUL; the tool list does not repeat that on every string. Examples are the document's.
    if (key === "pattern" && value === NUL_FREE_PATTERN) continue
    if (key === "examples") continue
    if (key === "properties" && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, v]) => [name, toolSchema(v, definitions)]))
    } else {
      out[key] = toolSchema(value, definitions)
    }
  }
  return out
}

/** The output schema a tool shows for a success schema (see `outputShape`). */
const outputShapeOf = (ast: SchemaAST.AST): JsonSchema => {
  const shape = outputShape(jsonSchemaOf(ast))
  return isObject(shape) ? shape : {}
}

/** Whether a schema admits null already (a null it is given then means something of its own, and is passed on). */
const admitsNull = (schema: JsonSchema): boolean =>
  schema["type"] === "null" ||
  (Array.isArray(schema["type"]) && schema["type"].includes("null")) ||
  (Array.isArray(schema["anyOf"]) && schema["anyOf"].some((member) => isObject(member) && admitsNull(member)))

/**
 * An optional argument as the tool list shows it: its type, or null. Strict function calling (OpenAI's) makes every
 * argument required and has the model send null for each one it does not use; a call takes that null as "not given".
 * Written with anyOf the type and null, each branch with a single `type`, as the output schemas are (a `type` list is
 * unreadable to single-type dialects, and the MCP Inspector's `--strict` warns of one); the description and default
 * stay outside, where a reader looks first.
 */
const orNull = (schema: JsonSchema): JsonSchema => {
  const { description, default: fallback, ...type } = schema
  return {
    ...(description === undefined ? {} : { description }),
    ...(fallback === undefined ? {} : { default: fallback }),
    anyOf: [type, { type: "null" }]
  }
}

const jsonSchemaOf = (ast: SchemaAST.AST): JsonSchema => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schema = JSONSchema.fromAST(ast, { definitions, topLevelReferenceStrategy: "skip" })
  const shown = toolSchema(schema, definitions)
  return isObject(shown) ? shown : {}
}

const partOf = (schema: Option.Option<Schema.Schema.All>, rename: (name: string) => string = (name) => name): Part => {
  if (Option.isNone(schema)) return { properties: {}, required: [] }
  const json = jsonSchemaOf(schema.value.ast)
  return {
    properties: Object.fromEntries(
      Object.entries(schemasAt(json, "properties")).map(([name, value]) => [rename(name), value])
    ),
    required: namesAt(json, "required").map(rename)
  }
}

const isFileField = (schema: JsonSchema) =>
  schema["format"] === "binary" || (isObject(schema["items"]) && schema["items"]["format"] === "binary")

/** The payload's alternatives (JSON, multipart): a field a tool must send is one every alternative requires. */
const payloadOf = (schema: Option.Option<Schema.Schema.All>) => {
  const fileArgs: Array<string> = []
  if (Option.isNone(schema)) return { part: partOf(Option.none()), fileArgs }
  const ast = schema.value.ast
  const members = ast._tag === "Union" ? ast.types : [ast]
  const properties: Record<string, JsonSchema> = {}
  let required: ReadonlyArray<string> | undefined
  for (const member of members) {
    const multipart = HttpApiSchema.getMultipart(member) !== undefined
    const json = jsonSchemaOf(member)
    for (const [name, value] of Object.entries(schemasAt(json, "properties"))) {
      if (multipart && isFileField(value)) {
        fileArgs.push(name)
        properties[name] = {
          type: "string",
          contentEncoding: "base64",
          ...(typeof value["description"] === "string" ? { description: value["description"] } : {}),
          ...properties[name]
        }
      } else {
        properties[name] ??= value
      }
    }
    const memberRequired = namesAt(json, "required")
    required = required === undefined ? memberRequired : required.filter((name) => memberRequired.includes(name))
  }
  return { part: { properties, required: required ?? [] }, fileArgs }
}

/** A header parameter's argument name: `If-Match` is `if_match`. */
const headerArg = (header: string) => header.toLowerCase().replace(/-/g, "_")

interface Found {
  readonly spec: AgentToolSpec | AgentToolVariant
  readonly route: ToolRoute
  readonly input: Part
  readonly output: JsonSchema
}

/**
 * The agent tools of an API: one per endpoint annotated with `AgentTool` (or one per name, over the endpoints that
 * share it). A tool's input schema is its endpoint's path, query, header and payload parameters together; its
 * output schema is the endpoint's success schema. Nothing here knows any particular tool.
 */
export const deriveTools = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): ReadonlyArray<Tool> => {
  const found: Array<Found> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const annotation = Context.getOption(mergedAnnotations, AgentTool)
      if (Option.isNone(annotation)) return
      const spec = annotation.value
      const names = spec.pathArgs ?? {}
      const path = partOf(endpoint.pathSchema, (name) => names[name] ?? name)
      const query = partOf(endpoint.urlParamsSchema)
      const headers = partOf(endpoint.headersSchema, headerArg)
      const payload = payloadOf(endpoint.payloadSchema)
      const pathParams = Option.match(endpoint.pathSchema, {
        onNone: (): Array<string> => [],
        onSome: (schema) => Object.keys(schemasAt(jsonSchemaOf(schema.ast), "properties"))
      })
      const headerNames = Option.match(endpoint.headersSchema, {
        onNone: (): Array<string> => [],
        onSome: (schema) => Object.keys(schemasAt(jsonSchemaOf(schema.ast), "properties"))
      })
      found.push({
        spec,
        route: {
          method: endpoint.method,
          path: endpoint.path,
          when: isVariant(spec) ? spec.when : undefined,
          pathArgs: pathParams.map((param) => ({ param, arg: names[param] ?? param })),
          queryArgs: Object.keys(query.properties),
          headerArgs: headerNames.map((header) => ({ header, arg: headerArg(header) })),
          hasPayload: Option.isSome(endpoint.payloadSchema),
          fileArgs: payload.fileArgs
        },
        input: {
          properties: { ...path.properties, ...query.properties, ...headers.properties, ...payload.part.properties },
          required: [...path.required, ...query.required, ...headers.required, ...payload.part.required]
        },
        output: outputShapeOf(endpoint.successSchema.ast)
      })
    }
  })
  const tools: Array<Tool> = []
  for (const primary of found) {
    if (isVariant(primary.spec)) continue
    const spec = primary.spec
    const all = found.filter((candidate) => candidate.spec.name === spec.name)
    const properties: Record<string, JsonSchema> = {}
    for (const { input } of all)
      for (const [name, value] of Object.entries(input.properties)) properties[name] ??= value
    const required = primary.input.required.filter((name) => all.every(({ input }) => input.required.includes(name)))
    const absentWhenNull = Object.keys(properties).filter(
      (name) => !required.includes(name) && !admitsNull(properties[name]!)
    )
    for (const name of absentWhenNull) properties[name] = orNull(properties[name]!)
    tools.push({
      name: spec.name,
      title: spec.title,
      // A write needs a connection the person allowed to edit; one allowed to read only gets a 403 challenge.
      description: spec.readOnly ? spec.description : `${spec.description} Needs scope content:write.`,
      annotations: {
        readOnlyHint: spec.readOnly,
        // Every change is stored as a revision and can be restored, so no tool destroys anything.
        destructiveHint: false,
        idempotentHint: spec.idempotent,
        openWorldHint: false
      },
      inputSchema: {
        type: "object",
        properties,
        ...(required.length === 0 ? {} : { required })
      },
      absentWhenNull,
      outputSchema: primary.output,
      routes: all.map((candidate) => candidate.route),
      card: spec.card
    })
  }
  return tools
}
