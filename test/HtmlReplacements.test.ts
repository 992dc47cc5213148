// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { applyReplacements, type ReplacementsResult } from "../src/Html/Replacements.js"

const body = "<p>The cat sat on the mat. The cat slept.</p>"

describe("applyReplacements", () => {
  it("replaces a find that occurs exactly once", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: "sat on", replace: "lay on" }]), {
      _tag: "Ok",
      body: "<p>The cat lay on the mat. The cat slept.</p>"
    })
  })

  it("applies replacements in order, each on the result of the one before", () => {
    const result = applyReplacements(body, [
      { find: "mat", replace: "rug" },
      { find: "the rug", replace: "the red rug" },
      { find: "red", replace: "blue" }
    ])
    assert.deepStrictEqual(result, { _tag: "Ok", body: "<p>The cat sat on the blue rug. The cat slept.</p>" })
  })

  it("replaces every occurrence when all is true", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: "cat", replace: "dog", all: true }]), {
      _tag: "Ok",
      body: "<p>The dog sat on the mat. The dog slept.</p>"
    })
  })

  it("deletes the find when replace is omitted", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: " The cat slept." }]), {
      _tag: "Ok",
      body: "<p>The cat sat on the mat.</p>"
    })
  })

  it("fails with the index and two occurrences when a find without all occurs twice", () => {
    assert.deepStrictEqual(
      applyReplacements(body, [
        { find: "mat", replace: "rug" },
        { find: "cat", replace: "dog" }
      ]),
      {
        _tag: "Conflict",
        index: 1,
        occurrences: 2
      }
    )
  })

  it("fails with the index and zero occurrences when a find does not occur, with or without all", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: "dog" }]), { _tag: "Conflict", index: 0, occurrences: 0 })
    assert.deepStrictEqual(applyReplacements(body, [{ find: "dog", all: true }]), {
      _tag: "Conflict",
      index: 0,
      occurrences: 0
    })
  })

  it("counts occurrences in the body as changed by the earlier replacements", () => {
    const result = applyReplacements(body, [
      { find: "mat", replace: "cat" },
      { find: "cat", replace: "x" }
    ])
    assert.deepStrictEqual(result, { _tag: "Conflict", index: 1, occurrences: 3 })
  })

  it("returns a Conflict and no partly edited body when a later replacement fails", () => {
    const result = applyReplacements(body, [{ find: "sat", replace: "lay" }, { find: "missing" }])
    assert.deepStrictEqual(result, { _tag: "Conflict", index: 1, occurrences: 0 })
    assert.isFalse("body" in result)
  })

  it("matches case-sensitively", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: "the cat" }]), {
      _tag: "Conflict",
      index: 0,
      occurrences: 0
    })
  })

  it("counts non-overlapping occurrences", () => {
    assert.deepStrictEqual(applyReplacements("aaa", [{ find: "aa", replace: "b" }]), { _tag: "Ok", body: "ba" })
    assert.deepStrictEqual(applyReplacements("aaaa", [{ find: "aa" }]), { _tag: "Conflict", index: 0, occurrences: 2 })
  })

  it("treats find and replace as plain text, never as patterns", () => {
    assert.deepStrictEqual(applyReplacements("a.b (c)* $1", [{ find: "(c)*", replace: "$& $1 $$" }]), {
      _tag: "Ok",
      body: "a.b $& $1 $$ $1"
    })
    assert.deepStrictEqual(applyReplacements("axb", [{ find: "." }]), { _tag: "Conflict", index: 0, occurrences: 0 })
  })

  it("rejects an empty find as a conflict with zero occurrences", () => {
    assert.deepStrictEqual(applyReplacements(body, [{ find: "", replace: "x" }]), {
      _tag: "Conflict",
      index: 0,
      occurrences: 0
    })
  })

  it("returns the body unchanged for an empty list", () => {
    assert.deepStrictEqual(applyReplacements(body, []), { _tag: "Ok", body })
  })

  it("agrees with String.prototype.split on occurrence counts and with split/join on the result", () => {
    const small = fc.string({ unit: fc.constantFrom("a", "b", "<", "$"), maxLength: 12 })
    fc.assert(
      fc.property(
        small,
        small.filter((find) => find !== ""),
        small,
        fc.boolean(),
        (text, find, replace, all) => {
          const occurrences = text.split(find).length - 1
          const result = applyReplacements(text, [{ find, replace, all }])
          if (all ? occurrences >= 1 : occurrences === 1) {
            assert.deepStrictEqual(result, { _tag: "Ok", body: text.split(find).join(replace) })
          } else {
            assert.deepStrictEqual(result, { _tag: "Conflict", index: 0, occurrences })
          }
        }
      ),
      { numRuns: 2000 }
    )
  })
})

/** Each item applied to the string left by the one before, with String methods only: the rule as written. */
const reference = (
  text: string,
  items: ReadonlyArray<{ find: string; replace: string; all: boolean }>
): ReplacementsResult => {
  let result = text
  for (const [index, { find, replace, all }] of items.entries()) {
    const occurrences = find === "" ? 0 : result.split(find).length - 1
    if (all ? occurrences < 1 : occurrences !== 1) return { _tag: "Conflict", index, occurrences }
    result = result.split(find).join(replace)
  }
  return { _tag: "Ok", body: result }
}

describe("applyReplacements on sequences", () => {
  // "\u6100" and "\u0000" are there so that, as UTF-16LE bytes, "a" can appear half-way through a code unit;
  // "\u{1F600}" brings surrogate pairs. Without them the text is handled one byte per code unit.
  const units = (wide: boolean) =>
    wide
      ? fc.constantFrom("a", "b", "<", "\u6100", "\u0000", "\u{1F600}", "\u00e9")
      : fc.constantFrom("a", "b", "<", "\u00e9")
  for (const wide of [false, true]) {
    it(`agrees with applying each item in turn with String methods (${wide ? "UTF-16" : "one byte"} text)`, () => {
      const small = fc.string({ unit: units(wide), maxLength: 16 })
      const item = fc.record({
        find: fc.string({ unit: units(wide), maxLength: 3 }),
        replace: small,
        all: fc.boolean()
      })
      fc.assert(
        fc.property(small, fc.array(item, { maxLength: 6 }), (text, items) => {
          assert.deepStrictEqual(applyReplacements(text, items), reference(text, items))
        }),
        { numRuns: 3000 }
      )
    })
  }

  it("does not match across the halves of two UTF-16 code units", () => {
    // As UTF-16LE bytes "\u6100\u0000" is 00 61 00 00, which holds "a" (61 00) one byte in.
    assert.deepStrictEqual(applyReplacements("\u6100\u0000", [{ find: "a", replace: "b" }]), {
      _tag: "Conflict",
      index: 0,
      occurrences: 0
    })
  })
})
