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
 * of the API would run it (README, "Generate a typed client"):
 * - openapi-typescript (types for openapi-fetch). The one option: a `format: binary` field (the featured-image
 *   upload) is a `Blob`, which is what FormData takes, rather than the generator's default `string`;
 * - orval, its fetch client, one file;
 * - @hey-api/openapi-ts, its fetch client.
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
    // Where the calls go: orval writes it into each URL.
    baseUrl: process.env["CBS_BASE_URL"] ?? "http://localhost:3000"
  }
})
process.stdout.write("client-check/generated/orval/ written (orval)\n")

await createClient({ input: document, output: generated("hey-api"), logs: { level: "silent" } })
process.stdout.write("client-check/generated/hey-api/ written (@hey-api/openapi-ts)\n")
