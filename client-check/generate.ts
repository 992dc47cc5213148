import { mkdirSync, writeFileSync } from "node:fs"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"

/**
 * Generates the client's types from the committed openapi.json, as a user of the API would (README, "Generate a
 * typed client"). The one option: a `format: binary` field (the featured-image upload) is a `Blob`, which is what
 * FormData takes, rather than the generator's default `string`.
 */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"))

const ast = await openapiTS(new URL("../openapi.json", import.meta.url), {
  transform: (schema) => ("format" in schema && schema.format === "binary" ? BLOB : undefined)
})
mkdirSync(new URL("./generated/", import.meta.url), { recursive: true })
writeFileSync(new URL("./generated/api.d.ts", import.meta.url), astToString(ast))
process.stdout.write("client-check/generated/api.d.ts written\n")
