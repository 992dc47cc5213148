import { writeFileSync } from "node:fs"
import { openApiDocument } from "../src/Meta/Http.js"

/** Writes the OpenAPI document the server serves to openapi.json, for reviewers and client generators. */
const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`
writeFileSync(new URL("../openapi.json", import.meta.url), text)
console.log(`openapi.json written (${text.length} bytes)`)
