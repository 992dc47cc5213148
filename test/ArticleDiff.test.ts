// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { applyPatch } from "diff"
import { foldDiff, lineDiff, textBefore, unifiedDiff } from "../src/Domain/BodyDiff.js"

const lines = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `<p>${prefix} ${i}</p>`)

/** `before` and a copy of it changed by `edit`, compared. */
const diffAfter = (before: ReadonlyArray<string>, edit: (after: Array<string>) => void) => {
  const after = [...before]
  edit(after)
  return { after, diff: lineDiff(before.join("\n"), after.join("\n")) }
}

/** The lines a diff removes or adds. */
const changes = (diff: ReturnType<typeof lineDiff>) => diff.filter((line) => line.kind !== "same")

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
    const before = lines(10_000)
    const { after, diff } = diffAfter(before, (after) => {
      after[5_000] = "<p>changed in the middle</p>"
      after.splice(5_002, 0, "<p>added two lines on</p>")
    })
    assert.deepStrictEqual(changes(diff), [
      { kind: "removed", text: "<p>line 5000</p>" },
      { kind: "added", text: "<p>changed in the middle</p>" },
      { kind: "added", text: "<p>added two lines on</p>" }
    ])
    assert.strictEqual(diff.filter((line) => line.kind !== "added").length, before.length)
    assert.strictEqual(diff.filter((line) => line.kind !== "removed").length, after.length)
  })

  it("edits near both ends of a 10,000-line body are found line by line", () => {
    const { diff } = diffAfter(lines(10_000), (after) => {
      after[3] = "<p>changed near the start</p>"
      after.splice(9_990, 1)
    })
    assert.deepStrictEqual(changes(diff), [
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
      diffAfter(lines(20), (after) => {
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

describe("unifiedDiff", () => {
  const labels = { from: "revision 1", to: "revision 2" }

  it("is empty for equal texts", () => {
    assert.strictEqual(unifiedDiff("<p>a</p>", "<p>a</p>", labels), "")
  })

  it("writes headers and hunks with three kept lines around each change, and applies as a patch", () => {
    const before = lines(20)
    const after = [...before]
    after[2] = "<p>changed early</p>"
    after.splice(15, 1)
    const diff = unifiedDiff(before.join("\n"), after.join("\n"), labels)
    assert.deepStrictEqual(
      diff.split("\n").filter((line) => /^(---|\+\+\+|@@)/.test(line)),
      ["--- revision 1", "+++ revision 2", "@@ -1,6 +1,6 @@", "@@ -13,7 +13,6 @@"]
    )
    assert.strictEqual(applyPatch(before.join("\n"), diff), after.join("\n"))
  })

  it("against an empty text every line is added", () => {
    assert.strictEqual(
      unifiedDiff("", "<p>a</p>\n<p>b</p>", labels),
      "--- revision 1\n+++ revision 2\n@@ -0,0 +1,2 @@\n+<p>a</p>\n+<p>b</p>\n"
    )
  })
})

describe("textBefore", () => {
  const labels = { from: "current", to: "proposed" }
  /** Lines that look like a patch's own (headers, hunks, markers) as well as ordinary ones. */
  const kinds = [
    "<p>a</p>",
    "<p>b</p>",
    "",
    "-- x",
    "++ y",
    "--- a",
    "+++ b",
    "@@ -1 +1 @@",
    "\\ No newline at end of file"
  ]

  it("gives back the text a unified diff was made from, from the text it leads to, for every pair", () => {
    // Every text of at most two of these lines (the empty one included), compared with every other.
    const texts = ["", ...kinds, ...kinds.flatMap((first) => kinds.map((second) => `${first}\n${second}`))]
    for (const before of texts) {
      for (const after of texts) {
        assert.strictEqual(
          textBefore(after, unifiedDiff(before, after, labels)),
          before,
          JSON.stringify([before, after])
        )
      }
    }
  })

  it("puts back several hunks of a long text, and a text emptied or made from nothing", () => {
    const before = lines(40)
    const after = [...before]
    after[2] = "<p>changed early</p>"
    after.splice(20, 3)
    after.push("<p>added at the end</p>")
    assert.strictEqual(
      textBefore(after.join("\n"), unifiedDiff(before.join("\n"), after.join("\n"), labels)),
      before.join("\n")
    )
    assert.strictEqual(textBefore("", unifiedDiff("<p>a</p>", "", labels)), "<p>a</p>")
    assert.strictEqual(textBefore("<p>a</p>", unifiedDiff("", "<p>a</p>", labels)), "")
    assert.strictEqual(textBefore("<p>a</p>", ""), "<p>a</p>")
  })
})
