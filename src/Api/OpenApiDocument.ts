import { type OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { ErrorBody } from "../Domain/Errors.js"
import { annotationOf, type Content, type DocumentOperation, type DocumentResponse } from "./DocumentOperation.js"
import {
  errorComponents,
  narrowedError,
  type Referring,
  referencedNames,
  responseDescription
} from "./ErrorComponents.js"
import { schemaExamples } from "./OpenApiExamples.js"
import { headerRef, headers, responseHeaders } from "./ResponseHeaders.js"
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
