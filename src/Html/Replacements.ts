export interface Replacement {
  readonly find: string
  readonly replace?: string | undefined
  readonly all?: boolean | undefined
}

export type ReplacementsResult =
  | { readonly _tag: "Ok"; readonly body: string }
  | { readonly _tag: "Conflict"; readonly index: number; readonly occurrences: number }
  | { readonly _tag: "TooLong"; readonly index: number; readonly length: number }

/** Text whose every code unit is below 256 fits one byte per code unit. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is every code unit that latin1 can hold
const beyondLatin1 = /[^\u0000-\u00ff]/

/**
 * The text being edited, as its code units in a buffer (one byte each when they all fit, else UTF-16), with a
 * second buffer to write each result into. Editing a 200 KB string in place of this would allocate (and later
 * collect) a new 200 KB string per item; the two buffers are allocated once and swapped. Searching the code units
 * finds exactly what `String#indexOf` finds: a match only counts at an offset where a code unit starts.
 */
class Text {
  private current: Buffer
  private spare: Buffer
  private length: number

  constructor(
    text: string,
    private readonly encoding: "latin1" | "utf16le"
  ) {
    this.current = Buffer.from(text, encoding)
    this.spare = Buffer.allocUnsafe(this.current.length)
    this.length = this.current.length
  }

  encode(text: string): Buffer {
    return Buffer.from(text, this.encoding)
  }

  /** Byte offsets of the non-overlapping occurrences of `find`, left to right; stops early after `max`. */
  occurrences(find: Buffer, max: number): Array<number> {
    const text = this.current.subarray(0, this.length)
    const found: Array<number> = []
    let at = text.indexOf(find)
    while (at !== -1 && found.length < max) {
      if (this.encoding === "utf16le" && at % 2 === 1) {
        at = text.indexOf(find, at + 1)
        continue
      }
      found.push(at)
      at = text.indexOf(find, at + find.length)
    }
    return found
  }

  /** The length in characters (code units) after replacing `count` occurrences of `findBytes` bytes by `replaceBytes`. */
  lengthAfter(count: number, findBytes: number, replaceBytes: number): number {
    return (this.length + count * (replaceBytes - findBytes)) / (this.encoding === "latin1" ? 1 : 2)
  }

  /** Replaces the `find.length` bytes at each of `offsets` (ascending, not overlapping) by `replace`. */
  replaceAt(offsets: ReadonlyArray<number>, findLength: number, replace: Buffer): void {
    const length = this.length + offsets.length * (replace.length - findLength)
    if (this.spare.length < length) this.spare = Buffer.allocUnsafe(length)
    let read = 0
    let write = 0
    for (const at of offsets) {
      write += this.current.copy(this.spare, write, read, at)
      write += replace.copy(this.spare, write)
      read = at + findLength
    }
    this.current.copy(this.spare, write, read, this.length)
    ;[this.current, this.spare] = [this.spare, this.current]
    this.length = length
  }

  toString(): string {
    return this.current.toString(this.encoding, 0, this.length)
  }
}

/**
 * Applies `items` in order, each to the result of the one before. `find` is an exact, case-sensitive substring
 * (never a pattern); without `all` it must occur exactly once, with `all: true` at least once, and an empty `find`
 * never matches. Occurrences are counted left to right without overlapping, the way `split` cuts ("aaa" holds "aa"
 * once). The first item that breaks its rule gives a Conflict with its 0-based `index` and how often its `find`
 * occurred in the body it was applied to; no partially edited body is ever returned. The first item that would
 * make the body longer than `maxLength` characters gives TooLong with its `index` and the length it would make,
 * before that body is built (50 replacements of every letter could otherwise ask for gigabytes).
 */
export const applyReplacements = (
  body: string,
  items: ReadonlyArray<Replacement>,
  maxLength = Number.POSITIVE_INFINITY
): ReplacementsResult => {
  if (items.length === 0) return { _tag: "Ok", body }
  const wide = [body, ...items.flatMap((item) => [item.find, item.replace ?? ""])].some((s) => beyondLatin1.test(s))
  const text = new Text(body, wide ? "utf16le" : "latin1")
  for (const [index, item] of items.entries()) {
    if (item.find === "") return { _tag: "Conflict", index, occurrences: 0 }
    const find = text.encode(item.find)
    // Without `all`, two occurrences are enough to know the item fails; the full count is only for the message.
    let offsets = text.occurrences(find, item.all === true ? Number.POSITIVE_INFINITY : 2)
    if (offsets.length === 0 || (item.all !== true && offsets.length > 1)) {
      if (offsets.length > 1) offsets = text.occurrences(find, Number.POSITIVE_INFINITY)
      return { _tag: "Conflict", index, occurrences: offsets.length }
    }
    const replace = text.encode(item.replace ?? "")
    const length = text.lengthAfter(offsets.length, find.length, replace.length)
    if (length > maxLength) return { _tag: "TooLong", index, length }
    text.replaceAt(offsets, find.length, replace)
  }
  return { _tag: "Ok", body: text.toString() }
}
