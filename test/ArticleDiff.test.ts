import { assert, describe, it } from "@effect/vitest"
import { lineDiff } from "../src/Web/ArticleDiff.js"

describe("lineDiff", () => {
  it("keeps common lines and marks removed and added ones in order", () => {
    assert.deepStrictEqual(lineDiff("a\nb\nc", "a\nx\nc\nd"), [
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" }
    ])
  })

  it("an identical text has only kept lines", () => {
    assert.isTrue(lineDiff("p\nq", "p\nq").every((line) => line.kind === "same"))
  })
})
