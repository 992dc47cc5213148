import type { OpenApiJsonSchema } from "@effect/platform"
import type { DocumentSchema } from "./DocumentOperation.js"

type JsonSchema = OpenApiJsonSchema.JsonSchema

const ERROR_REF = "#/components/schemas/Error"

/** An error the document lists: its identifier, its meaning and the fields besides `error` and `message` it carries. */
export interface ErrorComponent {
  readonly id: string
  readonly description: string
  readonly carries: ReadonlyArray<string>
}

const isObjectSchema = (schema: JsonSchema | undefined): schema is OpenApiJsonSchema.Object =>
  schema !== undefined && "type" in schema && schema.type === "object" && "properties" in schema

/**
 * The per-error component schemas the framework generates from the public errors (`NotFound`, …): an object whose
 * `error` is one identifier.
 */
export const errorComponents = (schemas: Readonly<Record<string, JsonSchema>>): ReadonlyMap<string, ErrorComponent> => {
  const found = new Map<string, ErrorComponent>()
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObjectSchema(schema)) continue
    const error = schema.properties["error"]
    if (error === undefined || !("enum" in error) || error.enum.length !== 1 || typeof error.enum[0] !== "string") {
      continue
    }
    found.set(name, {
      id: error.enum[0],
      description: schema.description ?? "",
      carries: schema.required.filter((field) => field !== "error" && field !== "message")
    })
  }
  return found
}

/** A schema that refers to components: directly, or through the members of `allOf`, `anyOf` or `oneOf`. */
export interface Referring {
  readonly $ref?: string
  readonly allOf?: ReadonlyArray<Referring>
  readonly anyOf?: ReadonlyArray<Referring>
  readonly oneOf?: ReadonlyArray<Referring>
}

/** The component names a response schema refers to. */
export const referencedNames = (schema: Referring | undefined): ReadonlyArray<string> =>
  schema === undefined
    ? []
    : schema.$ref !== undefined
      ? [schema.$ref.replace("#/components/schemas/", "")]
      : [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(referencedNames)

/**
 * A status's errors as one schema: the `Error` schema, its `error` narrowed to the status's identifiers. Errors that
 * always carry another field (`protected_links`, `limit`) are told apart from the rest, so that a generated client
 * knows the field is there.
 */
export const narrowedError = (errors: ReadonlyArray<ErrorComponent>): DocumentSchema => {
  const groups = new Map<string, Array<ErrorComponent>>()
  for (const error of errors) {
    const key = error.carries.join(",")
    groups.set(key, [...(groups.get(key) ?? []), error])
  }
  const members = [...groups.values()].map((group) => ({
    allOf: [
      { $ref: ERROR_REF },
      {
        type: "object",
        ...(group[0]!.carries.length === 0 ? {} : { required: group[0]!.carries }),
        properties: { error: { enum: group.map((error) => error.id) } }
      }
    ]
  }))
  return members.length === 1 ? members[0]! : { oneOf: members }
}

export const responseDescription = (errors: ReadonlyArray<ErrorComponent>) =>
  errors.length === 1
    ? errors[0]!.description
    : errors.map((error) => `- \`${error.id}\`: ${error.description}`).join("\n")
