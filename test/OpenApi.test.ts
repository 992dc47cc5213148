import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApp, TestServerLive } from "./support/TestServer.js"

type Json = Record<string, unknown>

interface Operation {
  readonly summary?: string
  readonly description?: string
  readonly security?: ReadonlyArray<Json>
  readonly parameters?: ReadonlyArray<{
    readonly name: string
    readonly in: string
    readonly description?: string
    readonly schema: Json
  }>
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: Json }> }>
}

interface Document {
  readonly openapi: string
  readonly info: { readonly version: string }
  readonly paths: Record<string, Record<string, Operation>>
  readonly security?: ReadonlyArray<Json>
  readonly components: {
    readonly schemas: Record<string, { readonly properties?: Record<string, Json> }>
    readonly securitySchemes: Record<string, Json>
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
 * The object schemas a response schema stands for: follows local `$ref`s and single `allOf` wrappers, and splits
 * `anyOf`/`oneOf` unions (a status with several error identifiers) into their variants.
 */
const variants = (document: Document, schema: Json): ReadonlyArray<Json> => {
  const ref = schema["$ref"]
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "")
    return variants(document, (document.components.schemas[name] ?? {}) as Json)
  }
  const allOf = schema["allOf"]
  if (Array.isArray(allOf) && allOf.length === 1) return variants(document, allOf[0] as Json)
  const union = schema["anyOf"] ?? schema["oneOf"]
  if (Array.isArray(union)) return union.flatMap((variant) => variants(document, variant as Json))
  return [schema]
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

    it.effect("each error response (401/403/404/409/413/422/429/500) has a JSON schema with an error property", () =>
      Effect.gen(function* () {
        const document = yield* fetchDocument
        let checked = 0
        for (const { name, operation } of operations(document)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) < 400) continue
            const schema = response.content?.["application/json"]?.schema
            assert.isDefined(schema, `${name} ${status} has no application/json schema`)
            for (const variant of variants(document, schema!)) {
              const properties = (variant["properties"] ?? {}) as Json
              assert.property(properties, "error", `${name} ${status}`)
              assert.property(properties, "message", `${name} ${status}`)
              assert.include((variant["required"] ?? []) as ReadonlyArray<string>, "error", `${name} ${status}`)
              checked++
            }
          }
        }
        assert.isAtLeast(checked, 15)
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
