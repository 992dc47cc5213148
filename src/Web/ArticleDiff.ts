/** One line of a line diff: kept in both, only in the old text, or only in the new one. */
export interface DiffLine {
  readonly kind: "same" | "removed" | "added"
  readonly text: string
}

/** What a diff view shows: changed lines with a few kept lines around them, and the kept runs between folded. */
export type DiffItem = DiffLine | { readonly kind: "gap"; readonly lines: number }

/**
 * The largest changed region (lines before × lines after) compared line by line. The table of that comparison takes
 * 4 bytes a cell, so this bounds it at 64 MiB; a larger region is shown as all its old lines removed and all its new
 * ones added, which is still exact, only less precise.
 */
const MAX_CELLS = 16_000_000

/** The longest-common-subsequence diff of two arrays of lines (O(n·m) time and memory). */
const lcsDiff = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<DiffLine> => {
  const n = a.length
  const m = b.length
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((text) => ({ kind: "removed" as const, text })),
      ...b.map((text) => ({ kind: "added" as const, text }))
    ]
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs: Array<Uint32Array> = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)
    }
  }
  const out: Array<DiffLine> = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]! })
      i++
      j++
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: "removed", text: a[i++]! })
    } else {
      out.push({ kind: "added", text: b[j++]! })
    }
  }
  while (i < n) out.push({ kind: "removed", text: a[i++]! })
  while (j < m) out.push({ kind: "added", text: b[j++]! })
  return out
}

/**
 * A line diff of `before` → `after`. Lines are split on `\n`; the result lists every line of both texts once, in
 * order. The lines both texts start and end with are matched first, so that an edit of a long body compares only the
 * region that changed.
 */
export const lineDiff = (before: string, after: string): ReadonlyArray<DiffLine> => {
  const a = before.split("\n")
  const b = after.split("\n")
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

/** The diff as shown: `context` kept lines on each side of a change, longer kept runs folded into a gap. */
export const foldDiff = (lines: ReadonlyArray<DiffLine>, context = 3): ReadonlyArray<DiffItem> => {
  const near = lines.map(() => false)
  lines.forEach((line, index) => {
    if (line.kind === "same") return
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true
  })
  const out: Array<DiffItem> = []
  let folded = 0
  lines.forEach((line, index) => {
    if (near[index]) {
      if (folded > 0) out.push({ kind: "gap", lines: folded })
      folded = 0
      out.push(line)
    } else {
      folded++
    }
  })
  if (folded > 0) out.push({ kind: "gap", lines: folded })
  return out
}
