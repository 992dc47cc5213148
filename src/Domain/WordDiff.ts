import { diffArrays } from "diff"
import { foldAround } from "./BodyDiff.js"

/** A word, a space or a punctuation mark of a body's text, with the formatting it is shown in. */
export interface TextToken {
  readonly text: string
  /** The formatting elements around it (`strong`, `em`, …), outermost first. */
  readonly format: ReadonlyArray<string>
  /** The link it is part of, if any. */
  readonly href: string | null
  /** A protected link, kept as one token (its whole text): the edit must keep it exactly. */
  readonly protected?: "backlink" | "internal"
}

/** A paragraph, heading, list item or other block of text, named by its element. */
export interface TextBlock {
  readonly tag: string
  readonly tokens: ReadonlyArray<TextToken>
}

/** A token as the word diff shows it: kept, removed, added, or kept with other formatting (`was` the old token). */
export interface DiffToken {
  readonly kind: "same" | "removed" | "added" | "formatted"
  readonly token: TextToken
  readonly was?: TextToken
}

/** A block of the diff: kept as it was, changed (word by word), or removed or added whole; or a fold of kept ones. */
export type DiffBlock =
  | {
      readonly kind: "same" | "changed" | "removed" | "added"
      readonly tag: string
      readonly tokens: ReadonlyArray<DiffToken>
      /** A changed block that was another element (a paragraph made a heading): its old element. */
      readonly wasTag?: string
    }
  | { readonly kind: "gap"; readonly blocks: number }

/** Past this many edits the diff stops searching for the shortest one (as in the line diff): still exact, less precise. */
const MAX_EDIT_LENGTH = 1_000

const formatKey = (token: TextToken) => JSON.stringify([token.format, token.href, token.protected ?? null])

/** Two tokens are the same words when they differ at most in the white space after them. */
const sameText = (a: TextToken, b: TextToken) =>
  a.text.trimEnd() === b.text.trimEnd() &&
  (a.protected ?? null) === (b.protected ?? null) &&
  (a.protected === undefined || a.href === b.href)

const sameToken = (a: TextToken, b: TextToken) => sameText(a, b) && formatKey(a) === formatKey(b)

/**
 * Walks the `diff` package's changes with both sides' items: `same` gets each kept pair (old, new), `removed` and
 * `added` the items only in one side. Without a diff (past the edit bound) everything old is removed, all new added.
 */
const walk = <T>(
  before: ReadonlyArray<T>,
  after: ReadonlyArray<T>,
  equal: (a: T, b: T) => boolean,
  visit: { same: (a: T, b: T) => void; removed: (items: Array<T>) => void; added: (items: Array<T>) => void }
): void => {
  const changes = diffArrays([...before], [...after], { comparator: equal, maxEditLength: MAX_EDIT_LENGTH }) ?? [
    { removed: true, added: false, count: before.length, value: [...before] },
    { removed: false, added: true, count: after.length, value: [...after] }
  ]
  let i = 0
  let j = 0
  for (const change of changes) {
    const count = change.count ?? change.value.length
    if (change.removed) {
      visit.removed(before.slice(i, i + count))
      i += count
    } else if (change.added) {
      visit.added(after.slice(j, j + count))
      j += count
    } else {
      for (let k = 0; k < count; k++) visit.same(before[i + k]!, after[j + k]!)
      i += count
      j += count
    }
  }
}

/**
 * The word diff of two runs of tokens: the words removed and added, and the words kept (a kept word whose formatting
 * or link changed is `formatted`, shown in its new formatting).
 */
export const wordDiff = (before: ReadonlyArray<TextToken>, after: ReadonlyArray<TextToken>): Array<DiffToken> => {
  const out: Array<DiffToken> = []
  // Between two kept words, every word removed comes before every word added: "<del>old words</del><ins>new</ins>".
  let added: Array<DiffToken> = []
  walk(before, after, sameText, {
    same: (was, token) => {
      out.push(...added)
      added = []
      out.push(sameToken(was, token) ? { kind: "same", token } : { kind: "formatted", token, was })
    },
    removed: (tokens) => out.push(...tokens.map((token): DiffToken => ({ kind: "removed", token }))),
    added: (tokens) => added.push(...tokens.map((token): DiffToken => ({ kind: "added", token })))
  })
  out.push(...added)
  return out
}

/** A word, a run of white space, or one other character (punctuation): the units a word diff compares. */
export const WORDS = /\s+|[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu

/**
 * Adds `token` to a run of tokens. White space (given as " ") joins the word before it (`taps `), as the `diff`
 * package's word diff does, so that a replaced word is one change; a run of it is one space, and none leads a run.
 */
export const pushToken = (tokens: Array<TextToken>, token: TextToken): void => {
  const last = tokens[tokens.length - 1]
  if (token.text !== " ") tokens.push(token)
  else if (last === undefined || last.text.endsWith(" ")) return
  else if (last.protected === undefined && last.text !== "\n")
    tokens[tokens.length - 1] = { ...last, text: `${last.text} ` }
  else tokens.push(token)
}

/** Ends a run of tokens: no white space after its last word. */
export const endTokens = (tokens: Array<TextToken>): Array<TextToken> => {
  const last = tokens[tokens.length - 1]
  if (last?.text === " ") tokens.pop()
  else if (last !== undefined && last.protected === undefined)
    tokens[tokens.length - 1] = { ...last, text: last.text.trimEnd() }
  return tokens
}

/** The tokens of a one-line text (a title, a meta description): its words, unformatted. */
export const plainTokens = (text: string | null): ReadonlyArray<TextToken> => {
  const tokens: Array<TextToken> = []
  for (const [word] of (text ?? "").matchAll(WORDS)) {
    pushToken(tokens, { text: /^\s/.test(word) ? " " : word, format: [], href: null })
  }
  return endTokens(tokens)
}

const blockKey = (block: TextBlock) =>
  JSON.stringify([block.tag, block.tokens.map((token) => [token.text, formatKey(token)])])

const whole = (kind: "same" | "removed" | "added", block: TextBlock): DiffBlock => ({
  kind,
  tag: block.tag,
  tokens: block.tokens.map((token) => ({ kind, token }))
})

/**
 * The diff of two bodies' blocks: blocks kept, removed and added, and where blocks were replaced, each removed one
 * paired in order with an added one and compared word by word (the rest of the longer side removed or added whole).
 */
export const blockDiff = (before: ReadonlyArray<TextBlock>, after: ReadonlyArray<TextBlock>): Array<DiffBlock> => {
  const out: Array<DiffBlock> = []
  let removed: Array<TextBlock> = []
  const settle = (added: Array<TextBlock>) => {
    const paired = Math.min(removed.length, added.length)
    for (let k = 0; k < paired; k++) {
      const [was, now] = [removed[k]!, added[k]!]
      const tokens = wordDiff(was.tokens, now.tokens)
      out.push(
        was.tag === now.tag
          ? { kind: "changed", tag: now.tag, tokens }
          : { kind: "changed", tag: now.tag, tokens, wasTag: was.tag }
      )
    }
    out.push(...removed.slice(paired).map((block) => whole("removed", block)))
    out.push(...added.slice(paired).map((block) => whole("added", block)))
    removed = []
  }
  // Each block's key is computed once, not at every comparison the diff makes.
  const keyed = (blocks: ReadonlyArray<TextBlock>) => blocks.map((block) => ({ block, key: blockKey(block) }))
  walk(keyed(before), keyed(after), (a, b) => a.key === b.key, {
    same: (_, { block }) => {
      settle([])
      out.push(whole("same", block))
    },
    removed: (blocks) => {
      removed.push(...blocks.map(({ block }) => block))
    },
    added: (blocks) => settle(blocks.map(({ block }) => block))
  })
  settle([])
  return out
}

/** The diff as shown: `context` kept blocks on each side of a change, longer kept runs folded into a gap. */
export const foldBlocks = (blocks: ReadonlyArray<DiffBlock>, context = 1): Array<DiffBlock> =>
  foldAround(blocks, context, (count): DiffBlock => ({ kind: "gap", blocks: count }))
