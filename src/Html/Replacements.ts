export interface Replacement {
  readonly find: string
  readonly replace?: string | undefined
  readonly all?: boolean | undefined
}

export type ReplacementsResult =
  | { readonly _tag: "Ok"; readonly body: string }
  | { readonly _tag: "Conflict"; readonly index: number; readonly occurrences: number }

/** Non-overlapping occurrences, counted left to right the way `split` cuts: "aaa" holds "aa" once. */
const countOccurrences = (body: string, find: string): number => {
  let count = 0
  for (let at = body.indexOf(find); at !== -1; at = body.indexOf(find, at + find.length)) count++
  return count
}

/**
 * Applies `items` in order, each to the result of the one before. `find` is an exact, case-sensitive substring
 * (never a pattern); without `all` it must occur exactly once, with `all: true` at least once, and an empty `find`
 * never matches. The first item that breaks its rule gives a Conflict with its 0-based `index` and how often its
 * `find` occurred in the body it was applied to; no partially edited body is ever returned.
 */
export const applyReplacements = (body: string, items: ReadonlyArray<Replacement>): ReplacementsResult => {
  let result = body
  for (const [index, item] of items.entries()) {
    if (item.find === "") return { _tag: "Conflict", index, occurrences: 0 }
    const occurrences = countOccurrences(result, item.find)
    const ok = item.all === true ? occurrences >= 1 : occurrences === 1
    if (!ok) return { _tag: "Conflict", index, occurrences }
    // No String.replace: `$&`, `$1`… in the replacement text must stay literal.
    const replace = item.replace ?? ""
    if (occurrences === 1) {
      const at = result.indexOf(item.find)
      result = result.slice(0, at) + replace + result.slice(at + item.find.length)
    } else {
      result = result.split(item.find).join(replace)
    }
  }
  return { _tag: "Ok", body: result }
}
