import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { schemaExamples } from "../src/Api/OpenApiExamples.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

type Json = Record<string, unknown>

interface Operation {
  readonly tags?: ReadonlyArray<string>
  readonly summary?: string
  readonly description?: string
  readonly security?: ReadonlyArray<Json>
  readonly parameters?: ReadonlyArray<{
    readonly name: string
    readonly in: string
    readonly description?: string
    readonly schema: Json
  }>
  readonly requestBody?: { readonly content: Record<string, { readonly schema?: Json }> }
  readonly responses: Record<
    string,
    {
      readonly description: string
      readonly headers?: Record<string, Json>
      readonly content?: Record<string, { readonly schema?: Json }>
    }
  >
}

interface Document {
  readonly openapi: string
  readonly info: { readonly version: string; readonly license?: Json; readonly contact?: Json }
  readonly servers?: ReadonlyArray<{ readonly url: string }>
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description?: string }>
  readonly paths: Record<string, Record<string, Operation>>
  readonly security?: ReadonlyArray<Json>
  readonly components: {
    readonly schemas: Record<string, Json & { readonly properties?: Record<string, Json> }>
    readonly securitySchemes: Record<string, Json>
    readonly headers?: Record<string, Json>
  }
}

/** The served document, fetched without credentials. */
const fetchDocument = Effect.gen(function* () {
  const app = yield* TestApp
  const res = yield* app.fetch("/api/v1/openapi.json")
  assert.strictEqual(res.status, 200)
  const document: Document = yield* Effect.promise(() => res.json())
  return document
})

const interfacePaths = {
  "/api/v1/sites": "get",
  "/api/v1/sites/{id}/articles": "get",
  "/api/v1/articles/{id}": "get",
  "/api/v1/sites/{id}/backlinks": "get",
  "/api/v1/sites/{id}/stats": "get",
  "/api/v1/openapi.json": "get"
} as const

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation }))
  )

/**
 * The narrowings of `Error` a response schema is made of: `allOf: [Error, { properties: { error: { enum } } }]`, or a
 * `oneOf` of those (a status whose errors differ in the fields they always carry).
 */
const errorNarrowings = (schema: Json): ReadonlyArray<{ readonly base: unknown; readonly narrowing: Json }> => {
  const oneOf = schema["oneOf"]
  if (Array.isArray(oneOf)) return oneOf.flatMap((member) => errorNarrowings(member as Json))
  const allOf = (schema["allOf"] ?? []) as ReadonlyArray<Json>
  return [{ base: allOf[0]?.["$ref"], narrowing: (allOf[1] ?? {}) as Json }]
}

/** Every place a `title` keyword stands in a schema (a property named title is no keyword). */
const titlesIn = (node: unknown, at: string): ReadonlyArray<string> => {
  if (Array.isArray(node)) return node.flatMap((item, i) => titlesIn(item, `${at}/${i}`))
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) => {
    if (key === "title" && typeof value === "string") return [`${at}: ${value}`]
    if (key === "examples") return []
    if (key === "properties" && typeof value === "object" && value !== null) {
      return Object.entries(value).flatMap(([name, schema]) => titlesIn(schema, `${at}/properties/${name}`))
    }
    return titlesIn(value, `${at}/${key}`)
  })
}

layer(TestServerLive)("GET /api/v1/openapi.json", (it) => {
  describe("document", () => {
    it.effect("is served without credentials as OpenAPI 3.1.x with info.version 1.0.0", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const res = yield* app.fetch("/api/v1/openapi.json")
        assert.strictEqual(res.status, 200)
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/)
        const document: Document = yield* Effect.promise(() => res.json())
        assert.match(document.openapi, /^3\.1\.\d+$/)
        assert.strictEqual(document.info.version, "1.0.0")
      })
    )

    it.effect("declares both security schemes: http bearer and an X-API-Key header", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const schemes = Object.values(document.components.securitySchemes)
        assert.isTrue(
          schemes.some((s) => s["type"] === "http" && String(s["scheme"]).toLowerCase() === "bearer"),
          "no http bearer scheme"
        )
        assert.isTrue(
          schemes.some((s) => s["type"] === "apiKey" && s["in"] === "header" && s["name"] === "X-API-Key"),
          "no apiKey header X-API-Key scheme"
        )
      })
    )

    it.effect("every tag has a description; the document has a license, a contact and its own server", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const document = yield* fetchDocument
        for (const tag of document.tags) assert.isString(tag.description, tag.name)
        const used = new Set(operations(document).flatMap(({ operation }) => operation.tags ?? []))
        assert.sameMembers(
          document.tags.map((tag) => tag.name),
          [...used]
        )
        assert.isString(document.info.license?.["name"])
        assert.isString(document.info.contact?.["name"])
        // The test server has no PUBLIC_BASE_URL: it names http://localhost:<its port>.
        assert.deepStrictEqual(
          document.servers?.map((server) => server.url),
          [`http://localhost:${new URL(app.baseUrl).port}`]
        )
      })
    )

    it.effect("describes every path of the interface", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const [path, method] of Object.entries(interfacePaths)) {
          assert.isDefined(document.paths[path]?.[method], `${method.toUpperCase()} ${path} is missing`)
        }
      })
    )

    it.effect("describes the article write endpoints: PUT and PATCH /articles/{id}, POST featured-image", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        assert.isDefined(document.paths["/api/v1/articles/{id}"]?.["put"], "PUT /api/v1/articles/{id} is missing")
        assert.isDefined(document.paths["/api/v1/articles/{id}"]?.["patch"], "PATCH /api/v1/articles/{id} is missing")
        assert.isDefined(
          document.paths["/api/v1/articles/{id}/featured-image"]?.["post"],
          "POST /api/v1/articles/{id}/featured-image is missing"
        )
      })
    )

    it.effect("openapi.json needs no credentials; every other operation requires bearer or X-API-Key", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const schemeNames = Object.keys(document.components.securitySchemes)
        for (const { name, path, operation } of operations(document)) {
          const security = operation.security ?? document.security ?? []
          if (path === "/api/v1/openapi.json") {
            assert.isTrue(
              security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0),
              `${name} requires credentials`
            )
          } else {
            assert.isAbove(security.length, 0, `${name} has no security requirement`)
            assert.isFalse(
              security.some((requirement) => Object.keys(requirement).length === 0),
              `${name} allows anonymous access`
            )
            const used = security.flatMap((requirement) => Object.keys(requirement))
            assert.sameMembers([...new Set(used)], schemeNames, name)
          }
        }
      })
    )

    it.effect("authenticated operations document 401; id paths document 404; the sites list documents 403", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const { name, path, operation } of operations(document)) {
          if (path !== "/api/v1/openapi.json") assert.property(operation.responses, "401", name)
          if (path.includes("{id}")) assert.property(operation.responses, "404", name)
        }
        assert.property(document.paths["/api/v1/sites"]!["get"]!.responses, "403")
        assert.property(document.paths["/api/v1/sites/{id}/stats"]!["get"]!.responses, "422")
      })
    )
  })

  describe("operations", () => {
    it.effect("no operation lists a 400 response", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const { name, operation } of operations(document)) {
          assert.notProperty(operation.responses, "400", name)
        }
      })
    )

    it.effect("every error response is the one Error schema, its error narrowed to identifiers Error lists", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const error = document.components.schemas["Error"]!
        assert.deepStrictEqual(Object.keys(error.properties ?? {}).sort(), [
          "error",
          "limit",
          "message",
          "protected_links"
        ])
        assert.sameMembers(error["required"] as Array<string>, ["error", "message"])
        const identifiers = error.properties!["error"]!["enum"] as ReadonlyArray<string>
        const seen = new Set<string>()
        for (const { name, operation } of operations(document)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) < 400) continue
            const schema = response.content?.["application/json"]?.schema
            assert.isDefined(schema, `${name} ${status} has no application/json schema`)
            for (const { base, narrowing } of errorNarrowings(schema!)) {
              assert.strictEqual(base, "#/components/schemas/Error", `${name} ${status}`)
              const values = ((narrowing["properties"] as Json | undefined)?.["error"] as Json | undefined)?.["enum"]
              assert.isArray(values, `${name} ${status} does not narrow error`)
              for (const value of values as ReadonlyArray<string>) {
                assert.include(identifiers, value, `${name} ${status}`)
                seen.add(value)
              }
            }
          }
        }
        assert.sameMembers([...seen], [...identifiers])
        const others = Object.keys(document.components.schemas).filter((schema) =>
          /Error|Unauthorized|NotFound|Forbidden|Limit|Conflict|TooLarge|Unsupported|Disallowed|Violation/.test(schema)
        )
        assert.deepStrictEqual(others, ["Error"], "one error schema only")
      })
    )

    it.effect("statuses narrow to the contract's identifiers, and require the fields their errors always carry", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const patch = document.paths["/api/v1/articles/{id}"]!["patch"]!.responses
        const narrowed = (status: string) =>
          errorNarrowings(patch[status]!.content!["application/json"]!.schema!).map(({ narrowing }) => ({
            error: ((narrowing["properties"] as Json)["error"] as Json)["enum"],
            required: narrowing["required"] ?? []
          }))
        assert.deepStrictEqual(narrowed("409"), [
          { error: ["idempotency_key_in_use", "replacement_conflict"], required: [] }
        ])
        assert.deepStrictEqual(narrowed("412"), [{ error: ["precondition_failed"], required: [] }])
        assert.deepStrictEqual(narrowed("422"), [
          { error: ["validation_error", "idempotency_key_reused", "disallowed_html"], required: [] },
          { error: ["protected_link_violation"], required: ["protected_links"] }
        ])
        assert.deepStrictEqual(narrowed("429"), [
          { error: ["rate_limited", "edit_limit_exceeded"], required: ["limit"] }
        ])
        assert.deepStrictEqual(narrowed("503"), [{ error: ["unavailable"], required: [] }])
      })
    )

    it.effect("every response declares X-Request-Id; authenticated ones RateLimit-*; 429 and 503 Retry-After", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const declared = (reference: Json | undefined) => {
          const name = String(reference?.["$ref"] ?? "").replace("#/components/headers/", "")
          return document.components.headers?.[name]
        }
        for (const { name, path, operation } of operations(document)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            const headers = response.headers ?? {}
            const at = `${name} ${status}`
            assert.isDefined(declared(headers["X-Request-Id"]), `${at} X-Request-Id`)
            const limited = path !== "/api/v1/openapi.json" && status !== "401" && status !== "503"
            for (const header of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"]) {
              assert.strictEqual(declared(headers[header]) !== undefined, limited, `${at} ${header}`)
            }
            assert.strictEqual(
              declared(headers["Retry-After"]) !== undefined,
              status === "429" || status === "503",
              `${at} Retry-After`
            )
            if (status === "401") assert.isDefined(declared(headers["WWW-Authenticate"]), `${at} WWW-Authenticate`)
            const retryable = operation.parameters?.some((p) => p.in === "header" && p.name === "idempotency-key")
            assert.strictEqual(declared(headers["Idempotent-Replayed"]) !== undefined, retryable === true, at)
          }
        }
      })
    )

    it.effect(
      "the featured-image body has two media types: a multipart form with a binary image beside url and reason, and JSON with url required",
      () =>
        Effect.gen(function* () {
          const document = yield* fetchDocument
          const body = document.paths["/api/v1/articles/{id}/featured-image"]!["post"]!.requestBody!
          assert.deepStrictEqual(Object.keys(body.content), ["multipart/form-data", "application/json"])
          const multipart = body.content["multipart/form-data"]!.schema!
          const properties = multipart["properties"] as Record<string, Json>
          assert.deepStrictEqual(Object.keys(properties), ["image", "url", "reason"])
          assert.deepStrictEqual(multipart["required"], [])
          assert.strictEqual(properties["image"]!["type"], "string")
          assert.strictEqual(properties["image"]!["format"], "binary")
          assert.isString(properties["image"]!["description"])
          assert.isString(properties["url"]!["description"])
          const json = body.content["application/json"]!.schema!
          assert.strictEqual(json["type"], "object")
          assert.deepStrictEqual(Object.keys(json["properties"] as Record<string, Json>), ["url", "reason"])
          assert.deepStrictEqual(json["required"], ["url"])
          assert.strictEqual(json["additionalProperties"], false)
        })
    )

    it.effect("path ids are integers with minimum 1", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const { name, path, operation } of operations(document)) {
          if (!path.includes("{id}")) continue
          const id = operation.parameters?.find((p) => p.in === "path" && p.name === "id")
          assert.isDefined(id, `${name} has no id parameter`)
          assert.strictEqual(id!.schema["type"], "integer", name)
          assert.strictEqual(id!.schema["minimum"], 1, name)
        }
      })
    )

    it.effect("page is an integer from 1 and per_page an integer from 1 to 100 on every list", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const path of ["/api/v1/sites", "/api/v1/sites/{id}/articles", "/api/v1/sites/{id}/backlinks"]) {
          const parameters = document.paths[path]!["get"]!.parameters ?? []
          const perPage = parameters.find((p) => p.name === "per_page" && p.in === "query")
          const page = parameters.find((p) => p.name === "page" && p.in === "query")
          assert.isDefined(perPage, `${path} has no per_page`)
          assert.isDefined(page, `${path} has no page`)
          assert.strictEqual(perPage!.schema["type"], "integer", path)
          assert.strictEqual(perPage!.schema["minimum"], 1, path)
          assert.strictEqual(perPage!.schema["maximum"], 100, path)
          assert.strictEqual(page!.schema["type"], "integer", path)
          assert.strictEqual(page!.schema["minimum"], 1, path)
        }
      })
    )

    it.effect("the article status filter is an enum of draft, scheduled and published", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const status = document.paths["/api/v1/sites/{id}/articles"]!["get"]!.parameters?.find(
          (p) => p.name === "status"
        )
        assert.isDefined(status)
        assert.sameMembers(status!.schema["enum"] as Array<string>, ["draft", "scheduled", "published"])
      })
    )

    it.effect("every operation has a summary and a description", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const { name, operation } of operations(document)) {
          assert.isString(operation.summary, `${name} has no summary`)
          assert.isAbove(operation.summary!.trim().length, 0, `${name} has an empty summary`)
          assert.isString(operation.description, `${name} has no description`)
          assert.isAbove(operation.description!.trim().length, 0, `${name} has an empty description`)
        }
      })
    )

    it.effect("every parameter has a description", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const missing = operations(document).flatMap(({ name, operation }) =>
          (operation.parameters ?? [])
            .filter((p) => typeof p.description !== "string" || p.description.trim() === "")
            .map((p) => `${name} ${p.in} ${p.name}`)
        )
        assert.deepStrictEqual(missing, [], `parameters without a description: ${missing.join(", ")}`)
      })
    )
  })

  describe("schemas", () => {
    it.effect("no schema carries a title (the schema library's labels such as maxLength(2000) stay out)", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const found = [...titlesIn(document.paths, "#/paths"), ...titlesIn(document.components, "#/components")]
        assert.deepStrictEqual(found, [])
      })
    )

    it.effect("the main schemas carry examples", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        for (const name of ["Site", "Article", "ArticleWithBody", "Backlink", "Stats", "PageMeta", "Error"]) {
          const examples = document.components.schemas[name]?.["examples"]
          assert.isArray(examples, name)
          assert.isAbove((examples as ReadonlyArray<unknown>).length, 0, name)
        }
      })
    )

    it.effect("every property of Site, Article, ArticleWithBody, Backlink, Stats and PageMeta has a description", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const missing: Array<string> = []
        for (const name of ["Site", "Article", "ArticleWithBody", "Backlink", "Stats", "PageMeta"]) {
          const schema = document.components.schemas[name]
          assert.isDefined(schema, `no ${name} schema`)
          const properties = Object.entries(schema!.properties ?? {})
          assert.isAbove(properties.length, 0, `${name} has no properties`)
          for (const [property, definition] of properties) {
            const description = definition["description"]
            if (typeof description !== "string" || description.trim() === "") missing.push(`${name}.${property}`)
          }
        }
        assert.deepStrictEqual(missing, [], `properties without a description: ${missing.join(", ")}`)
      })
    )

    it.effect("the schemas carry the contract's enums for statuses, anchor types, categories and scope", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        const enumOf = (schema: string, property: string) => {
          const definition = document.components.schemas[schema]?.properties?.[property] ?? {}
          const variants = (definition["anyOf"] as ReadonlyArray<Json> | undefined) ?? [definition]
          return variants.flatMap((v) => (v["enum"] as ReadonlyArray<string> | undefined) ?? [])
        }
        assert.sameMembers(enumOf("Article", "status"), ["draft", "scheduled", "published"])
        assert.sameMembers(enumOf("Backlink", "status"), ["pending", "live", "lost"])
        assert.sameMembers(enumOf("Backlink", "anchor_type"), [
          "exact_match",
          "partial_match",
          "branded",
          "naked_url",
          "generic"
        ])
        assert.sameMembers(enumOf("Backlink", "category"), ["industry", "local"])
        assert.sameMembers(enumOf("Site", "geographic_scope"), ["local", "regional", "national", "international"])
      })
    )
  })
})

describe("OpenAPI examples", () => {
  it("every example decodes through the schema it illustrates", () => {
    for (const [name, { schema, value }] of Object.entries(schemaExamples)) {
      const decoded = Schema.decodeUnknownEither(schema)(value, { onExcessProperty: "error" })
      assert.isTrue(Either.isRight(decoded), `${name}: ${Either.isLeft(decoded) ? decoded.left.message : ""}`)
    }
  })
})
