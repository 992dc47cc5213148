const QUOTE = 0x22 // "
const BACKSLASH = 0x5c // \
const OPEN_ARRAY = 0x5b // [
const CLOSE_ARRAY = 0x5d // ]
const OPEN_OBJECT = 0x7b // {
const CLOSE_OBJECT = 0x7d // }

/** Whether the `"` at `at` is escaped: preceded by an odd run of backslashes (`\"` is, `\\"` is not). */
const isEscaped = (text: string, at: number): boolean => {
  let backslashes = 0
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
  return backslashes % 2 === 1
}

/**
 * Whether JSON `text` nests arrays and objects more than `max` levels deep (`[]` and `{}` are one level, a scalar
 * none), read off the raw text before it is parsed. A deeply nested body parses fine, but what reads the parsed
 * value afterwards recurses once per level (a decode error message echoes the value through Effect's
 * `formatUnknown`, which overflows the stack at a few thousand levels), so it is refused up front.
 *
 * One pass over the text without recursion and without allocating: brackets are counted outside strings, and each
 * string is skipped with `indexOf` to its closing quote (a quote after an odd run of backslashes is escaped; escapes
 * cannot hide a quote or a backslash any other way, since `\u0022` is six plain characters here). It stops at the
 * first level past `max`.
 *
 * For valid JSON the answer is exact. For text that is not JSON it concerns only the brackets outside strings; such
 * text fails to parse anyway, and reading it still costs one pass.
 */
export const jsonDepthExceeds = (text: string, max: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1)
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1)
      if (end === -1) return false
      i = end
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++
      if (depth > max) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}
