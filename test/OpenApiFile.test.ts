// @tags: unit
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { openApiDocument } from "../src/Meta/Http.js"

describe("openapi.json", () => {
  it("the committed openapi.json equals the served document (run `npm run openapi` after changing the API)", () => {
    const committed = readFileSync(new URL("../openapi.json", import.meta.url), "utf8")
    assert.strictEqual(committed, `${JSON.stringify(openApiDocument(), null, 2)}\n`)
  })
})
