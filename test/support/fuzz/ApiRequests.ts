import fc from "fast-check"
import { hostileHtml, rarely, shortHostileString } from "./Hostile.js"
import { asHeaderValue, framing, headersOf, idSegment, jsonBody, queryString, queryValue } from "./HostileHttp.js"
import { hostileJson, toJsonText } from "./HostileJson.js"
import { multipartRequest } from "./Multipart.js"
import type { RawRequest } from "./RawHttp.js"
import { isSchema, type JsonSchema, valuesOf } from "./SchemaValues.js"

// Requests to every operation of the API, read off its OpenAPI document.

/** A request parameter's value as text: strings as they are, anything else as its JSON. */
const paramText = (value: unknown) => (typeof value === "string" ? value : toJsonText(value))

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, OpenApiOperation>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

export interface OpenApiOperation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly schema: JsonSchema }>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> }
}

export interface Operation {
  readonly method: string
  readonly path: string
  readonly operation: OpenApiOperation
}

const httpMethods = ["get", "put", "post", "patch", "delete", "head", "options"]

/** Every operation of the document. */
export const operationsOf = (doc: OpenApiDocument): ReadonlyArray<Operation> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation }))
  )

/** What the API requests are made of: the fixtures' ids and credentials. */
export interface ApiFixtures {
  readonly siteIds: ReadonlyArray<number>
  readonly articleIds: ReadonlyArray<number>
  /** Ids of another account's site and article: a 404, exactly like ids that do not exist. */
  readonly foreignIds: ReadonlyArray<number>
  readonly key: string
  readonly adminKey: string
  /** Text of the own article's body, for replacements that find something. */
  readonly bodyText: ReadonlyArray<string>
}

/** The credentials an API request carries: the account's key (either header), an admin's, none, or junk. */
const apiAuth = (fx: ApiFixtures): fc.Arbitrary<Record<string, string>> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant({ authorization: `Bearer ${fx.key}` }) },
    { weight: 3, arbitrary: fc.constant({ "x-api-key": fx.key }) },
    { weight: 1, arbitrary: fc.constant({ authorization: `Bearer ${fx.adminKey}` }) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        shortHostileString.map((junk) => ({ authorization: asHeaderValue(`Bearer ${junk}`) })),
        shortHostileString.map((junk) => ({ "x-api-key": asHeaderValue(junk) })),
        fc.constant({ authorization: "Basic Zm9vOmJhcg==", "x-api-key": fx.key }),
        fc.constant({ authorization: `Bearer ${fx.key}`, "x-api-key": "cbs_wrong" })
      )
    }
  )

/** A path as sent, sometimes bent: other case, doubled or trailing slashes, a `;`, an escaped slash. */
const bentPath = (path: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(path) },
    fc.constantFrom(
      path.toUpperCase(),
      `${path}/`,
      path.replace("/api/v1/", "/api/v1//"),
      `${path};x`,
      path.replace(/\/(?=[^/]*$)/, "%2F"),
      `${path}/..`,
      `${path}%00`
    )
  )

/** Requests to one operation: its path filled with ids, its query, its body, and everything around them. */
export const apiRequest = (doc: OpenApiDocument, op: Operation, fx: ApiFixtures): fc.Arbitrary<RawRequest> => {
  const resolve = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")] ?? {}
  const parameters = op.operation.parameters ?? []
  const favour: Record<string, fc.Arbitrary<unknown>> = {
    body: hostileHtml,
    find: fc.constantFrom(...fx.bodyText),
    replace: hostileHtml
  }
  const valid = op.path.includes("/sites/") ? fx.siteIds : fx.articleIds
  const pathArb = fc
    .tuple(
      ...parameters
        .filter((p) => p.in === "path")
        .map((p) =>
          idSegment(valid, [...fx.foreignIds, ...fx.siteIds, ...fx.articleIds]).map((v) => [p.name, v] as const)
        )
    )
    .map((segments) => segments.reduce((path, [name, value]) => path.replace(`{${name}}`, value), op.path))
    .chain(bentPath)
  const query = queryString(
    parameters
      .filter((p) => p.in === "query")
      .map((p) => [p.name, queryValue(valuesOf(p.schema, resolve).map(paramText))] as const)
  )
  const content = op.operation.requestBody?.content ?? {}
  const bodies: Array<fc.Arbitrary<{ readonly contentType: string | undefined; readonly body: string | Uint8Array }>> =
    []
  const json = content["application/json"]
  if (json !== undefined) {
    const schema = json.schema["$ref"] === undefined ? json.schema : resolve(String(json.schema["$ref"]))
    const fields = Object.keys(isSchema(schema["properties"]) ? schema["properties"] : {})
    bodies.push(jsonBody(valuesOf(schema, resolve, favour), fields))
  }
  const multipart = content["multipart/form-data"]
  if (multipart !== undefined) {
    const properties = multipart.schema["properties"]
    bodies.push(multipartRequest(Object.keys(isSchema(properties) ? properties : {})))
  }
  // No body defined: mostly none, sometimes one anyway.
  const body =
    bodies.length === 0
      ? fc.oneof(
          { weight: 8, arbitrary: fc.constant({ contentType: undefined, body: "" }) },
          { weight: 1, arbitrary: jsonBody(hostileJson, []) }
        )
      : fc.oneof(...bodies)
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(op.method) },
    fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
  )
  const extraHeaders = fc.record({
    "if-match": rarely(6, fc.oneof(fc.constantFrom('"1"', '"0"', "*", 'W/"1"'), shortHostileString.map(asHeaderValue))),
    "idempotency-key": rarely(6, fc.oneof(fc.uuid(), shortHostileString.map(asHeaderValue))),
    accept: rarely(6, fc.constantFrom("application/json", "text/html", "*/*", "application/xml", "")),
    cookie: rarely(10, shortHostileString.map(asHeaderValue))
  })
  return fc
    .record({ method, path: pathArb, query, auth: apiAuth(fx), extra: extraHeaders, body, framing })
    .map(({ method, path, query, auth, extra, body, framing }) => ({
      method,
      target: `${path}${query}`,
      headers: headersOf([...Object.entries(extra), ...Object.entries(auth), ["content-type", body.contentType]]),
      body: body.body,
      framing
    }))
}
