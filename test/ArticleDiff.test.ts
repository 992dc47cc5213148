// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { foldDiff, lineDiff } from "../src/Web/ArticleDiff.js"

const lines = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `<p>${prefix} ${i}</p>`)

/** The diff of `count` lines against the same lines after `edit` (which changes its copy in place). */
const diffAfter = (count: number, edit: (after: Array<string>) => void) => {
  const before = lines(count)
  const after = [...before]
  edit(after)
  const diff = lineDiff(before.join("\n"), after.join("\n"))
  return { before, after, diff, changes: diff.filter((line) => line.kind !== "same") }
}

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

  it("a 10,000-line body with one paragraph changed compares only that region, and lists every line once", () => {
    const { before, after, diff, changes } = diffAfter(10_000, (after) => {
      after[5_000] = "<p>changed in the middle</p>"
      after.splice(5_002, 0, "<p>added two lines on</p>")
    })
    assert.deepStrictEqual(changes, [
      { kind: "removed", text: "<p>line 5000</p>" },
      { kind: "added", text: "<p>changed in the middle</p>" },
      { kind: "added", text: "<p>added two lines on</p>" }
    ])
    assert.strictEqual(diff.filter((line) => line.kind !== "added").length, before.length)
    assert.strictEqual(diff.filter((line) => line.kind !== "removed").length, after.length)
  })

  it("edits near both ends of a 10,000-line body are found line by line", () => {
    const { changes } = diffAfter(10_000, (after) => {
      after[3] = "<p>changed near the start</p>"
      after.splice(9_990, 1)
    })
    assert.deepStrictEqual(changes, [
      { kind: "removed", text: "<p>line 3</p>" },
      { kind: "added", text: "<p>changed near the start</p>" },
      { kind: "removed", text: "<p>line 9990</p>" }
    ])
  })

  it("two long bodies with nothing in common are all removed then all added, without a table of their size", () => {
    const before = lines(6_000, "old")
    const after = lines(6_000, "new")
    const diff = lineDiff(before.join("\n"), after.join("\n"))
    assert.deepStrictEqual(
      diff.map((line) => line.text),
      [...before, ...after]
    )
    assert.isTrue(diff.slice(0, 6_000).every((line) => line.kind === "removed"))
  })
})

describe("foldDiff", () => {
  it("keeps three lines around each change and folds the kept runs between into gaps", () => {
    const folded = foldDiff(
      diffAfter(20, (after) => {
        after[10] = "<p>changed</p>"
      }).diff
    )
    assert.deepStrictEqual(folded[0], { kind: "gap", lines: 7 })
    assert.deepStrictEqual(
      folded.slice(1, -1).map((item) => (item.kind === "gap" ? "gap" : `${item.kind} ${item.text}`)),
      [
        "same <p>line 7</p>",
        "same <p>line 8</p>",
        "same <p>line 9</p>",
        "removed <p>line 10</p>",
        "added <p>changed</p>",
        "same <p>line 11</p>",
        "same <p>line 12</p>",
        "same <p>line 13</p>"
      ]
    )
    assert.deepStrictEqual(folded.at(-1), { kind: "gap", lines: 6 })
  })
})
