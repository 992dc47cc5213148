/** One line of a line diff: kept in both, only in the old text, or only in the new one. */
export interface DiffLine {
  readonly kind: "same" | "removed" | "added"
  readonly text: string
}

/**
 * A line diff of `before` → `after` from their longest common subsequence (O(n·m) table, fine for article bodies of
 * a few thousand lines). Lines are split on `\n`; the result lists every line of both texts once, in order.
 */
export const lineDiff = (before: string, after: string): ReadonlyArray<DiffLine> => {
  const a = before.split("\n")
  const b = after.split("\n")
  const n = a.length
  const m = b.length
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
