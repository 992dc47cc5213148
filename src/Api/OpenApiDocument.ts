import { OpenApiJsonSchema } from "@effect/platform"
import { ErrorBody } from "../Domain/Errors.js"
import { schemaExamples } from "./OpenApiExamples.js"
import { withoutSchemaTitles } from "./SchemaTitles.js"

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const objectAt = (u: unknown): Json => (isObject(u) ? u : {})

/** Where `npm start` serves the service: the default of the committed document's server. */
export const DEFAULT_BASE_URL = "http://localhost:3000"

/**
 * The committed openapi.json names its server as a template whose one variable is the service's address, so that a
 * reader or a generator fills in its own deployment's; the served document names the configured address itself
 * (see `withServer`).
 */
const templateServer = {
  url: "{base_url}",
  description: "The service: its PUBLIC_BASE_URL.",
  variables: {
    base_url: {
      default: DEFAULT_BASE_URL,
      description: "The service's public address, without a trailing slash (`npm start` serves http://localhost:3000)."
    }
  }
}

const ERROR_REF = "#/components/schemas/Error"
const headerRef = (name: ResponseHeader) => ({ $ref: `#/components/headers/${name}` })

/** The response headers the service sends, declared once and referred to from each response. */
const headers = {
  "X-Request-Id": {
    description: "The request's id, also in every server log line about it (quote it when reporting a problem).",
    required: true,
    schema: { type: "string" }
  },
  "RateLimit-Limit": {
    description: "Requests the credential may make per minute.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Remaining": {
    description: "Requests the credential has left in the current minute.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Reset": {
    description: "Seconds until the current minute's window ends.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Policy": {
    description:
      'The limits that apply: `"requests";q=<per minute>;w=60, "edits";q=<article changes per UTC day>;w=86400`.',
    schema: { type: "string" }
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    required: true,
    schema: { type: "integer", minimum: 0 }
  },
  ETag: {
    description: 'The article\'s current revision, quoted ("3"): send it back as If-Match to change only that version.',
    required: true,
    schema: { type: "string" }
  },
  "Idempotent-Replayed": {
    description: "true when this answer is the one kept for an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] }
  },
  "WWW-Authenticate": {
    description: "How to authenticate: a Bearer challenge.",
    required: true,
    schema: { type: "string" }
  }
} satisfies Record<string, Json>

type ResponseHeader = keyof typeof headers

/**
 * An endpoint annotation (`OpenApi.Transform`): the endpoint's answers with `status` carry the response header `name`,
 * besides those every answer carries.
 */
export const sendsHeader =
  (status: string, name: ResponseHeader) =>
  (operation: Record<string, unknown>): Record<string, unknown> => {
    const response = objectAt(objectAt(operation["responses"])[status])
    return {
      ...operation,
      responses: {
        ...objectAt(operation["responses"]),
        [status]: { ...response, headers: { ...objectAt(response["headers"]), [name]: headerRef(name) } }
      }
    }
  }

interface ErrorComponent {
  readonly id: string
  readonly description: string
  /** Fields besides `error` and `message` that this error always carries. */
  readonly carries: ReadonlyArray<string>
}

/** The per-error component schemas the framework generates (`NotFound`, …): one `error` value each. */
const errorComponents = (schemas: Json): Map<string, ErrorComponent> => {
  const found = new Map<string, ErrorComponent>()
  for (const [name, schema] of Object.entries(schemas)) {
    const values = objectAt(objectAt(objectAt(schema)["properties"])["error"])["enum"]
    if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== "string") continue
    const required = (objectAt(schema)["required"] ?? []) as ReadonlyArray<string>
    found.set(name, {
      id: values[0],
      description: String(objectAt(schema)["description"] ?? ""),
      carries: required.filter((field) => field !== "error" && field !== "message")
    })
  }
  return found
}

/** The component names a response schema refers to, through `allOf`, `anyOf` and `oneOf`. */
const referencedNames = (schema: unknown): ReadonlyArray<string> => {
  if (!isObject(schema)) return []
  const ref = schema["$ref"]
  if (typeof ref === "string") return [ref.replace("#/components/schemas/", "")]
  return ["allOf", "anyOf", "oneOf"].flatMap((key) => {
    const members = schema[key]
    return Array.isArray(members) ? members.flatMap(referencedNames) : []
  })
}

/**
 * A status's errors as one schema: the `Error` schema, its `error` narrowed to the status's identifiers. Errors that
 * always carry another field (`protected_links`, `limit`) are told apart from the rest, so that a generated client
 * knows the field is there.
 */
const narrowedError = (errors: ReadonlyArray<ErrorComponent>): Json => {
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

const responseDescription = (errors: ReadonlyArray<ErrorComponent>) =>
  errors.length === 1
    ? errors[0]!.description
    : errors.map((error) => `- \`${error.id}\`: ${error.description}`).join("\n")

/** The headers of a response: its request id always; the limit headers when the credential was counted. */
const responseHeaders = (status: string, authenticated: boolean): Json => ({
  "X-Request-Id": headerRef("X-Request-Id"),
  ...(authenticated && status !== "401" && status !== "503"
    ? Object.fromEntries(
        (["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"] as const).map((name) => [
          name,
          headerRef(name)
        ])
      )
    : {}),
  ...(status === "429" || status === "503" ? { "Retry-After": headerRef("Retry-After") } : {}),
  ...(status === "401" ? { "WWW-Authenticate": headerRef("WWW-Authenticate") } : {})
})

const mapValues = (record: unknown, f: (value: Json, key: string) => unknown): Json =>
  Object.fromEntries(Object.entries(objectAt(record)).map(([key, value]) => [key, f(objectAt(value), key)]))

/**
 * A request body that an endpoint takes both as a multipart form and as JSON is described by its multipart form, the
 * JSON form in words: generators pick one media type per operation, and given both, orval and hey-api pick JSON,
 * which leaves their clients unable to upload a file (orval sends the file JSON-encoded, hey-api types the body as
 * JSON only). The multipart form holds every field, so every generated call works, uploads included; the service
 * still takes the JSON form.
 */
const requestBodyOf = (body: Json): Json => {
  const content = objectAt(body["content"])
  const multipart = content["multipart/form-data"]
  const json = objectAt(content["application/json"])
  if (multipart === undefined || content["application/json"] === undefined) {
    return { ...body, content: contentWithoutTitles(content) }
  }
  const required = (objectAt(json["schema"])["required"] ?? []) as ReadonlyArray<string>
  return {
    ...body,
    description: `A multipart form (multipart/form-data). The same fields but a file may be sent as a JSON object instead (Content-Type: application/json${required.length === 0 ? "" : `; ${required.join(", ")} required`}).`,
    content: contentWithoutTitles({ "multipart/form-data": multipart })
  }
}

/** Schemas of a content map (`{ "application/json": { schema } }`) without their internal titles. */
const contentWithoutTitles = (content: unknown) =>
  mapValues(content, (media) => ({ ...media, schema: withoutSchemaTitles(media["schema"]) }))

/**
 * The document as generators and linters take it, from the one the framework builds:
 * - decode failures are answered 422 `validation_error` (see Server/ClientErrors.ts), so the framework's always-listed 400,
 *   and the schemas only it used, are removed;
 * - every error response is the one `Error` schema, its `error` narrowed to the status's identifiers;
 * - every response declares its headers (`X-Request-Id`, `RateLimit-*`, `Retry-After`, `WWW-Authenticate`);
 * - schema `title`s (the schema library's internal labels) are removed; the main schemas get examples;
 * - a request body taken both as a multipart form and as JSON is described by the form (see `requestBodyOf`);
 * - the document gets its server, contact and license.
 * Tags (groups) carry their descriptions, and an endpoint the headers of its own, as annotations.
 */
export const documentTransform = (spec: Json): Json => {
  const components = objectAt(spec["components"])
  const schemas = objectAt(components["schemas"])
  const errors = errorComponents(schemas)
  // The status each identifier is answered with, to list the identifiers in the order of their statuses.
  const statusOf = new Map<string, number>()

  const paths = mapValues(spec["paths"], (item) =>
    mapValues(item, (operation) => {
      const authenticated = Array.isArray(operation["security"]) && operation["security"].length > 0
      const parameters = (operation["parameters"] ?? []) as ReadonlyArray<Json>
      // A kept answer may be replayed whatever its status; a read of one article sends its revision as ETag.
      const takesIdempotencyKey = parameters.some((p) => p["in"] === "header" && p["name"] === "idempotency-key")
      const { 400: _, ...responses } = objectAt(operation["responses"])
      return {
        ...operation,
        parameters: ((operation["parameters"] ?? []) as ReadonlyArray<Json>).map((parameter) => ({
          ...parameter,
          schema: withoutSchemaTitles(parameter["schema"])
        })),
        ...(operation["requestBody"] === undefined
          ? {}
          : {
              requestBody: requestBodyOf(objectAt(operation["requestBody"]))
            }),
        responses: mapValues(responses, (response, status) => {
          // Headers an endpoint declares itself (an endpoint-level transform) are kept beside these.
          const withHeaders = {
            ...response,
            headers: {
              ...responseHeaders(status, authenticated),
              ...(takesIdempotencyKey ? { "Idempotent-Replayed": headerRef("Idempotent-Replayed") } : {}),
              ...objectAt(response["headers"])
            }
          }
          if (Number(status) < 400) return { ...withHeaders, content: contentWithoutTitles(response["content"]) }
          const media = objectAt(objectAt(response["content"])["application/json"])
          const its = [...new Set(referencedNames(media["schema"]))].flatMap((name) => {
            const error = errors.get(name)
            return error === undefined ? [] : [error]
          })
          if (its.length === 0) return withHeaders
          for (const error of its) statusOf.set(error.id, Number(status))
          return {
            ...withHeaders,
            description: responseDescription(its),
            content: { "application/json": { ...media, schema: narrowedError(its) } }
          }
        })
      }
    })
  )

  const defs: Record<string, unknown> = {}
  OpenApiJsonSchema.makeWithDefs(ErrorBody, { defs })
  const errorSchema = objectAt(defs["Error"])
  const errorProperties = objectAt(errorSchema["properties"])
  const identifiers = [...statusOf.keys()].sort((a, b) => statusOf.get(a)! - statusOf.get(b)!)
  const kept = Object.fromEntries(
    Object.entries(schemas).filter(
      ([name]) => !errors.has(name) && !["HttpApiDecodeError", "Issue", "PropertyKey"].includes(name)
    )
  )
  const allSchemas: Json = {
    ...kept,
    ...defs,
    Error: {
      ...errorSchema,
      properties: { ...errorProperties, error: { ...objectAt(errorProperties["error"]), enum: identifiers } }
    }
  }

  return {
    ...spec,
    info: {
      ...objectAt(spec["info"]),
      contact: { name: "The operators of this service" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" }
    },
    servers: [templateServer],
    paths,
    components: {
      ...components,
      schemas: mapValues(allSchemas, (schema, name) => {
        const example = schemaExamples[name]
        const clean = objectAt(withoutSchemaTitles(schema))
        return example === undefined ? clean : { ...clean, examples: [example.value] }
      }),
      headers
    }
  }
}

/** The document naming `base` (the service's public address, PUBLIC_BASE_URL) as its server. */
export const withServer = (spec: Json, base: string): Json => ({
  ...spec,
  servers: [{ url: base, description: "This service." }]
})
