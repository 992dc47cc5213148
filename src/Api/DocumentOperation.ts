import type { OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { type HeaderRef, headerRef, type ResponseHeader } from "./ResponseHeaders.js"

/** A schema the document writes that the framework's JSON Schema type has no member for. */
export type DocumentSchema =
  | OpenApiJsonSchema.JsonSchema
  | { readonly allOf: ReadonlyArray<object> }
  | { readonly oneOf: ReadonlyArray<object> }

export type Content = Partial<Record<OpenApi.OpenApiSpecContentType, { readonly schema: DocumentSchema }>>

/** A response as the document writes it: the framework's, with the headers it sends. */
export interface DocumentResponse {
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

/**
 * A transform as the framework's `OpenApi.Transform` annotation takes it: the framework hands over its document (or
 * an endpoint's operation) untyped, and this is the one place where it is read as the type it is.
 */
export const annotationOf =
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
