import { type OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { ErrorBody } from "../Domain/Errors.js"
import { schemaExamples } from "./OpenApiExamples.js"
import { withoutSchemaTitles } from "./SchemaTitles.js"

type JsonSchema = OpenApiJsonSchema.JsonSchema

/** Where `npm start` serves the service: the default of the committed document's server. */
export const DEFAULT_BASE_URL = "http://localhost:3000"

/**
 * The committed openapi.json names its server as a template whose one variable is the service's address, so that a
 * reader or a generator fills in its own deployment's; the served document names the configured address itself
 * (see `withServer`). The API names it with its `servers` annotation.
 */
export const templateServer: OpenApi.OpenAPISpecServer = {
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
} as const satisfies Record<string, { readonly description: string; readonly required?: true; readonly schema: object }>

type ResponseHeader = keyof typeof headers

/** A reference to one of the `headers` components. */
interface HeaderRef {
  readonly $ref: `#/components/headers/${ResponseHeader}`
}

const headerRef = (name: ResponseHeader): HeaderRef => ({ $ref: `#/components/headers/${name}` })

/** A schema the document writes that the framework's JSON Schema type has no member for. */
type DocumentSchema = JsonSchema | { readonly allOf: ReadonlyArray<object> } | { readonly oneOf: ReadonlyArray<object> }

type Content = Partial<Record<OpenApi.OpenApiSpecContentType, { readonly schema: DocumentSchema }>>

/** A response as the document writes it: the framework's, with the headers it sends. */
interface DocumentResponse {
  readonly description: string
  readonly content?: Content
  readonly headers?: Readonly<Record<string, HeaderRef>>
}

/** An operation as the document writes it: its answers carry their headers, its schemas have no internal titles. */
export interface DocumentOperation
  extends Omit<OpenApi.OpenAPISpecOperation, "responses" | "requestBody" | "parameters"> {
  readonly parameters: ReadonlyArray<OpenApi.OpenAPISpecParameter>
  readonly responses: Readonly<Record<string, DocumentResponse>>
  readonly requestBody?: { readonly content: Content; readonly required: true }
}

/** The document the service serves and commits (openapi.json): the framework's, completed by `documentTransform`. */
export type OpenApiDocument = Omit<OpenApi.OpenAPISpec, "info" | "paths" | "components"> & {
  readonly info: OpenApi.OpenAPISpecInfo & {
    readonly contact: { readonly name: string }
    readonly license: { readonly name: string; readonly identifier: string }
  }
  readonly paths: Readonly<Record<string, Partial<Record<OpenApi.OpenAPISpecMethodName, DocumentOperation>>>>
  readonly components: {
    readonly schemas: Readonly<Record<string, unknown>>
    readonly securitySchemes: Readonly<Record<string, OpenApi.OpenAPISecurityScheme>>
    readonly headers: typeof headers
  }
}

/**
 * A transform as the framework's `OpenApi.Transform` annotation takes it: the framework hands over its document (or
 * an endpoint's operation) untyped, and this is the one place where it is read as the type it is.
 */
const annotationOf =
  <A, B extends object>(transform: (value: A) => B) =>
  (value: Record<string, unknown>): Record<string, unknown> =>
    transform(value as A) as Record<string, unknown>

/**
 * An endpoint annotation (`OpenApi.Transform`): the endpoint's answers with `status` carry the response header `name`,
 * besides those every answer carries.
 */
export const sendsHeader = (status: number, name: ResponseHeader) =>
  annotationOf((operation: OpenApi.OpenAPISpecOperation): DocumentOperation => {
    const responses: Readonly<Record<string, DocumentResponse>> = operation.responses
    const response = responses[status]
    return response === undefined
      ? operation
      : {
          ...operation,
          responses: {
            ...responses,
            [status]: { ...response, headers: { ...response.headers, [name]: headerRef(name) } }
          }
        }
  })

/** An error the document lists: its identifier, its meaning and the fields besides `error` and `message` it carries. */
interface ErrorComponent {
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
const errorComponents = (schemas: Readonly<Record<string, JsonSchema>>): ReadonlyMap<string, ErrorComponent> => {
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
interface Referring {
  readonly $ref?: string
  readonly allOf?: ReadonlyArray<Referring>
  readonly anyOf?: ReadonlyArray<Referring>
  readonly oneOf?: ReadonlyArray<Referring>
}

/** The component names a response schema refers to. */
const referencedNames = (schema: Referring | undefined): ReadonlyArray<string> =>
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
const narrowedError = (errors: ReadonlyArray<ErrorComponent>): DocumentSchema => {
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

const LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"] as const

/** The headers of a response: its request id always; the limit headers when the credential was counted. */
const responseHeaders = (status: number, authenticated: boolean): Record<string, HeaderRef> => ({
  "X-Request-Id": headerRef("X-Request-Id"),
  ...(authenticated && status !== 401 && status !== 503
    ? Object.fromEntries(LIMIT_HEADERS.map((name) => [name, headerRef(name)]))
    : {}),
  ...(status === 429 || status === 503 ? { "Retry-After": headerRef("Retry-After") } : {}),
  ...(status === 401 ? { "WWW-Authenticate": headerRef("WWW-Authenticate") } : {})
})

/** A content map (`{ "application/json": { schema } }`) without its schemas' internal titles. */
const contentWithoutTitles = (content: Readonly<Record<string, { readonly schema: unknown }>> | undefined): Content =>
  Object.fromEntries(
    Object.entries(content ?? {}).map(([type, media]) => [
      type,
      { ...media, schema: withoutSchemaTitles(media.schema) as JsonSchema }
    ])
  )

/** Schemas only the framework's own 400 answer used; that answer is not the service's (see `documentTransform`). */
const FRAMEWORK_ONLY_SCHEMAS = new Set(["HttpApiDecodeError", "Issue", "PropertyKey"])

/**
 * The document as generators and linters take it, from the one the framework builds. Only what the framework cannot
 * say is done here (group descriptions, the server, examples of parameters and an endpoint's own headers are
 * annotations):
 * - decode failures are answered 422 `validation_error` (see Server/ClientErrors.ts), so the framework's always-listed
 *   400, and the schemas only it used, are removed;
 * - every error response is the one `Error` schema, its `error` narrowed to the status's identifiers;
 * - every response declares the headers every answer carries (`X-Request-Id`, `RateLimit-*`, `Retry-After`,
 *   `WWW-Authenticate`);
 * - schema `title`s (the schema library's internal labels) are removed;
 * - the main schemas get their examples, written as the schemas' encoded types (OpenApiExamples.ts): the schema
 *   library's `examples` annotation takes decoded values (branded ids, class instances), not what the wire carries;
 * - the document gets its contact and its license's SPDX identifier (the framework's info has neither).
 */
export const documentTransform = (spec: OpenApi.OpenAPISpec): OpenApiDocument => {
  const errors = errorComponents(spec.components.schemas)
  // The status each identifier is answered with, to list the identifiers in the order of their statuses.
  const statusOf = new Map<string, number>()

  const operationOf = (operation: OpenApi.OpenAPISpecOperation): DocumentOperation => {
    const authenticated = operation.security.length > 0
    // A kept answer may be replayed whatever its status.
    const takesIdempotencyKey = operation.parameters.some((p) => p.in === "header" && p.name === "idempotency-key")
    // Headers an endpoint declares itself (its own `OpenApi.Transform`) are kept beside these.
    const declared: Readonly<Record<string, DocumentResponse>> = operation.responses
    const responses = Object.entries(declared)
      .filter(([status]) => status !== "400")
      .map(([key, response]): [string, DocumentResponse] => {
        const status = Number(key)
        const withHeaders = {
          ...response,
          headers: {
            ...responseHeaders(status, authenticated),
            ...(takesIdempotencyKey ? { "Idempotent-Replayed": headerRef("Idempotent-Replayed") } : {}),
            ...response.headers
          }
        }
        const json = response.content?.["application/json"]
        if (status < 400) return [key, { ...withHeaders, content: contentWithoutTitles(response.content) }]
        const its = [...new Set(referencedNames(json?.schema as Referring | undefined))].flatMap((name) => {
          const error = errors.get(name)
          return error === undefined ? [] : [error]
        })
        if (its.length === 0) return [key, withHeaders]
        for (const error of its) statusOf.set(error.id, status)
        return [
          key,
          {
            ...withHeaders,
            description: responseDescription(its),
            content: { "application/json": { ...json, schema: narrowedError(its) } }
          }
        ]
      })
    return {
      ...operation,
      parameters: operation.parameters.map((parameter) => ({
        ...parameter,
        schema: withoutSchemaTitles(parameter.schema) as JsonSchema
      })),
      ...(operation.requestBody === undefined
        ? {}
        : { requestBody: { ...operation.requestBody, content: contentWithoutTitles(operation.requestBody.content) } }),
      responses: Object.fromEntries(responses)
    }
  }

  const paths = Object.fromEntries(
    Object.entries(spec.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, operationOf(operation)])
      ) as Partial<Record<OpenApi.OpenAPISpecMethodName, DocumentOperation>>
    ])
  )

  // The one Error schema, its `error` listing every identifier the document answers with.
  const defs: Record<string, JsonSchema> = {}
  OpenApiJsonSchema.makeWithDefs(ErrorBody, { defs })
  const errorSchema = defs["Error"] as OpenApiJsonSchema.Object
  const identifiers = [...statusOf.keys()].sort((a, b) => statusOf.get(a)! - statusOf.get(b)!)
  const schemas: Record<string, unknown> = {
    ...Object.fromEntries(
      Object.entries(spec.components.schemas).filter(([name]) => !errors.has(name) && !FRAMEWORK_ONLY_SCHEMAS.has(name))
    ),
    ...defs,
    Error: {
      ...errorSchema,
      properties: { ...errorSchema.properties, error: { ...errorSchema.properties["error"], enum: identifiers } }
    }
  }

  return {
    ...spec,
    info: {
      ...spec.info,
      contact: { name: "The operators of this service" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" }
    },
    paths,
    components: {
      ...spec.components,
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([name, schema]) => {
          const clean = withoutSchemaTitles(schema) as Record<string, unknown>
          const example = schemaExamples[name]
          return [name, example === undefined ? clean : { ...clean, examples: [example.value] }]
        })
      ),
      headers
    }
  }
}

/** `documentTransform` as the API's `OpenApi.Transform` annotation. */
export const documentAnnotation = annotationOf(documentTransform)

/** The document naming `base` (the service's public address, PUBLIC_BASE_URL) as its server. */
export const withServer = (spec: OpenApiDocument, base: string): OpenApiDocument => ({
  ...spec,
  servers: [{ url: base, description: "This service." }]
})
