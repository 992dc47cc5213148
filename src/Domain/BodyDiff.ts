import { diffArrays, parsePatch } from "diff"

/** One line of a line diff: kept in both, only in the old text, or only in the new one. */
export interface DiffLine {
  readonly kind: "same" | "removed" | "added"
  readonly text: string
}

/** What a diff view shows: changed lines with a few kept lines around them, and the kept runs between folded. */
export type DiffItem = DiffLine | { readonly kind: "gap"; readonly lines: number }

/**
 * Past this many edits (lines removed plus added) the diff stops looking for the shortest one and shows the region as
 * all its old lines removed and all its new ones added, which is still exact, only less precise. The search costs
 * about (lines × edits) steps on the event loop: at 20,000 a rewritten 6,000-line body took seconds of CPU to show.
 */
const MAX_EDIT_LENGTH = 1_000

/**
 * The line diff of two arrays of lines, by the `diff` package's O(ND) algorithm (Myers): fast on long bodies with
 * few changes, where a table of every pair of lines would take seconds and hundreds of MiB.
 */
const lcsDiff = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<DiffLine> => {
  const changes = diffArrays([...a], [...b], { maxEditLength: MAX_EDIT_LENGTH })
  if (changes === undefined) {
    return [
      ...a.map((text) => ({ kind: "removed" as const, text })),
      ...b.map((text) => ({ kind: "added" as const, text }))
    ]
  }
  return changes.flatMap((change) =>
    change.value.map((text): DiffLine => ({ kind: change.added ? "added" : change.removed ? "removed" : "same", text }))
  )
}

/**
 * A line diff of `before` → `after`. Lines are split on `\n` (an empty text has none); the result lists every line of both texts once, in
 * order. The lines both texts start and end with are matched first, so that an edit of a long body compares only the
 * region that changed.
 */
export const lineDiff = (before: string, after: string): ReadonlyArray<DiffLine> => {
  // An empty text has no lines (not one empty line): revision 1 is compared with nothing.
  const a = before === "" ? [] : before.split("\n")
  const b = after === "" ? [] : after.split("\n")
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const same = (text: string): DiffLine => ({ kind: "same", text })
  return [
    ...a.slice(0, start).map(same),
    ...lcsDiff(a.slice(start, endA), b.slice(start, endB)),
    ...a.slice(endA).map(same)
  ]
}

/**
 * `items` as a diff shows them: every changed item (of a kind other than `same`) with `context` items on each side
 * of it, each longer run of kept ones folded into one `gap(count)`.
 */
export const foldAround = <T extends { readonly kind: string }, G>(
  items: ReadonlyArray<T>,
  context: number,
  gap: (count: number) => G
): Array<T | G> => {
  const near = items.map(() => false)
  items.forEach((item, index) => {
    if (item.kind === "same") return
    for (let k = Math.max(0, index - context); k <= Math.min(items.length - 1, index + context); k++) near[k] = true
  })
  const out: Array<T | G> = []
  let folded = 0
  items.forEach((item, index) => {
    if (near[index]) {
      if (folded > 0) out.push(gap(folded))
      folded = 0
      out.push(item)
    } else {
      folded++
    }
  })
  if (folded > 0) out.push(gap(folded))
  return out
}

/** The diff as shown: `context` kept lines on each side of a change, longer kept runs folded into a gap. */
export const foldDiff = (lines: ReadonlyArray<DiffLine>, context = 3): ReadonlyArray<DiffItem> =>
  foldAround(lines, context, (count): DiffItem => ({ kind: "gap", lines: count }))

/**
 * The unified diff of `before` → `after` (`---`/`+++` headers named by `labels`, then hunks with three kept lines of
 * context), from the same line diff the pages show; empty when the texts are equal. A dry run's preview and a
 * revision's `diff` are this, so every door compares bodies one way.
 */
export const unifiedDiff = (
  before: string,
  after: string,
  labels: { readonly from: string; readonly to: string },
  context = 3
): string => {
  if (before === after) return ""
  const lines = lineDiff(before, after)
  // Lines of the old and of the new text that come before each line of the diff.
  const oldBefore: Array<number> = []
  const newBefore: Array<number> = []
  let old = 0
  let next = 0
  for (const line of lines) {
    oldBefore.push(old)
    newBefore.push(next)
    if (line.kind !== "added") old++
    if (line.kind !== "removed") next++
  }
  oldBefore.push(old)
  newBefore.push(next)
  const hunks: Array<{ start: number; end: number }> = []
  lines.forEach((line, index) => {
    if (line.kind === "same") return
    const start = Math.max(0, index - context)
    const end = Math.min(lines.length, index + context + 1)
    const last = hunks[hunks.length - 1]
    if (last !== undefined && start <= last.end) last.end = end
    else hunks.push({ start, end })
  })
  const range = (first: number, count: number) => `${count === 0 ? first : first + 1},${count}`
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`]
  for (const { start, end } of hunks) {
    const oldCount = oldBefore[end]! - oldBefore[start]!
    const newCount = newBefore[end]! - newBefore[start]!
    out.push(`@@ -${range(oldBefore[start]!, oldCount)} +${range(newBefore[start]!, newCount)} @@`)
    for (const line of lines.slice(start, end)) {
      out.push(`${line.kind === "same" ? " " : line.kind === "removed" ? "-" : "+"}${line.text}`)
    }
  }
  return `${out.join("\n")}\n`
}

/**
 * The text a `unifiedDiff` was made from, given the text it leads to (`after`): its hunks read backwards, the kept and
 * removed lines put back where the kept and added ones stand. A dry run's answer carries the proposed body and its
 * diff; this is the current body it was compared with.
 */
export const textBefore = (after: string, diff: string): string => {
  if (diff === "") return after
  const lines = after === "" ? [] : after.split("\n")
  const before: Array<string> = []
  let next = 0
  for (const hunk of parsePatch(diff)[0]?.hunks ?? []) {
    const start = hunk.newStart - 1
    before.push(...lines.slice(next, start))
    for (const line of hunk.lines) if (line.startsWith(" ") || line.startsWith("-")) before.push(line.slice(1))
    next = start + hunk.newLines
  }
  before.push(...lines.slice(next))
  return before.join("\n")
}
