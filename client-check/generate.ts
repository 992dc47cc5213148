import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { createClient } from "@hey-api/openapi-ts"
import openapiTS, { astToString } from "openapi-typescript"
import { generate } from "orval"
import ts from "typescript"

const document = fileURLToPath(new URL("../openapi.json", import.meta.url))
const generated = (path: string) => fileURLToPath(new URL(`./generated/${path}`, import.meta.url))
rmSync(generated(""), { recursive: true, force: true })

/**
 * Generates clients from the committed openapi.json with three popular generators, each with its defaults as a user
 * of the API would run it (docs/api.md, "Generate a typed client"), but for the one option each needs for the
 * featured-image body, which the document describes in two media types (a multipart form and JSON):
 * - openapi-typescript (types for openapi-fetch): a `format: binary` field (the upload's `image`) is a `Blob`, which
 *   is what FormData takes, rather than the generator's default `string`;
 * - orval, its fetch client, one file: `splitByContentType`, one function per media type
 *   (`articlesReplaceFeaturedImageWithFormData`, `…WithJson`); by default it writes one function that sends either
 *   body JSON-encoded, so a file never arrives;
 * - @hey-api/openapi-ts, its fetch client: a patch that keeps only the multipart form of a body that offers one (it
 *   holds every field, `url` included); by default hey-api takes the JSON form, whose type has no `image`.
 */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"))

const ast = await openapiTS(new URL("../openapi.json", import.meta.url), {
  transform: (schema) => ("format" in schema && schema.format === "binary" ? BLOB : undefined)
})
mkdirSync(generated(""), { recursive: true })
writeFileSync(generated("api.d.ts"), astToString(ast))
process.stdout.write("client-check/generated/api.d.ts written (openapi-typescript)\n")

await generate({
  input: { target: document },
  output: {
    target: generated("orval/api.ts"),
    client: "fetch",
    mode: "single",
    override: { splitByContentType: true },
    // Where the calls go: orval writes it into each URL.
    baseUrl: process.env["CBS_BASE_URL"] ?? "http://localhost:3000"
  }
})
process.stdout.write("client-check/generated/orval/ written (orval)\n")

await createClient({
  input: document,
  output: generated("hey-api"),
  logs: { level: "silent" },
  parser: {
    patch: {
      operations: (_method, _path, operation) => {
        const body = "requestBody" in operation ? operation.requestBody : undefined
        if (body === undefined || !("content" in body) || body.content["multipart/form-data"] === undefined) return
        for (const type of Object.keys(body.content)) if (type !== "multipart/form-data") delete body.content[type]
      }
    }
  }
})
process.stdout.write("client-check/generated/hey-api/ written (@hey-api/openapi-ts)\n")
