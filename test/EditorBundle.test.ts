// @tags: unit
import { readFileSync } from "node:fs"
import { gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"

/**
 * The article editor's script (dist/editor.js, built from src/Ui/Editor/ with ProseMirror) has a size budget: what
 * a customer's browser downloads once (it is served with a content hash and cached for a year). Measured at
 * 230 KB minified, 72 KB gzipped; the budget leaves room for small additions, not for a second library.
 */
const BUDGET_GZIPPED_BYTES = 80 * 1024

describe("the editor's script", () => {
  const script = readFileSync(new URL("../dist/editor.js", import.meta.url))

  it(`is at most ${BUDGET_GZIPPED_BYTES / 1024} KB gzipped`, () => {
    const gzipped = gzipSync(script, { level: 9 }).byteLength
    assert.isAtMost(gzipped, BUDGET_GZIPPED_BYTES, `dist/editor.js is ${(gzipped / 1024).toFixed(1)} KB gzipped`)
  })

  it("is a browser script that loads nothing else (one file, no Node.js module)", () => {
    const source = script.toString("utf8")
    assert.notMatch(source, /\bimport\s*\(["'`]|\brequire\(["'`]|["'`]node:/)
  })
})
