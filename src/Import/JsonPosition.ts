import { type ParsedTokenInfo, TokenType } from "@streamparser/json"
import { NUL_MESSAGE } from "../Domain/Text.js"
import { MAX_BODY_CHARACTERS } from "../Html/Bounds.js"
import { MAX_JSON_DEPTH } from "../Http/RequestBodies.js"
import type { ImportRefused } from "./ImportRefused.js"
import { refused } from "./Prepare.js"

/**
 * The most bytes of JSON one article or backlink may take, and any one value outside them: an article body at its
 * bound (MAX_BODY_CHARACTERS) written with an escape for every character, and its other fields. The reader holds
 * no more than this of a record while it is read, whatever the file holds.
 */
export const MAX_RECORD_BYTES = 6 * MAX_BODY_CHARACTERS + 64 * 1024

interface Frame {
  readonly array: boolean
  expectKey: boolean
}

/** Whether `path` lies inside one record: `accounts[a].sites[s].articles[i]…` (or `backlinks`). */
const inRecord = (path: ReadonlyArray<string | number>) =>
  path.length > 6 &&
  path[0] === "accounts" &&
  path[2] === "sites" &&
  (path[4] === "articles" || path[4] === "backlinks")

/**
 * Where the tokenizer of an import file is: the key or index of each open container down to the value being read,
 * how deep, since which byte the current record (or, outside records, the current value) has been read; and the
 * first refusal the tokens call for (NUL in a string, nesting deeper than MAX_JSON_DEPTH). `tooLarge(bytes)` says
 * whether what is being read has grown past MAX_RECORD_BYTES, before the parser holds any more of it.
 */
export class JsonPosition {
  private readonly path: Array<string | number> = []
  private readonly frames: Array<Frame> = []
  private record: string | undefined
  private recordStart = 0
  private lastToken = 0

  /** Reads one token; the refusal it calls for, if any. */
  see(info: ParsedTokenInfo): ImportRefused | undefined {
    const top = this.frames[this.frames.length - 1]
    this.lastToken = info.offset
    switch (info.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET: {
        const array = info.token === TokenType.LEFT_BRACKET
        this.frames.push({ array, expectKey: !array })
        this.path.push(array ? 0 : "")
        if (this.frames.length > MAX_JSON_DEPTH) {
          return refused(this.path.slice(0, 8), `is nested deeper than ${MAX_JSON_DEPTH} levels`)
        }
        break
      }
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.frames.pop()
        this.path.pop()
        break
      case TokenType.COMMA:
        if (top?.array === true) this.path[this.path.length - 1] = (this.path[this.path.length - 1] as number) + 1
        else if (top !== undefined) top.expectKey = true
        break
      case TokenType.COLON:
        if (top !== undefined) top.expectKey = false
        break
      case TokenType.STRING: {
        const key = top !== undefined && !top.array && top.expectKey
        if (key) this.path[this.path.length - 1] = info.value as string
        if ((info.value as string).includes("\u0000")) {
          return refused(key ? this.path.slice(0, -1) : this.path, key ? `has a key that ${NUL_MESSAGE}` : NUL_MESSAGE)
        }
        break
      }
    }
    if (inRecord(this.path)) {
      const record = this.path.slice(0, 6).join(" ")
      if (record !== this.record) {
        this.record = record
        this.recordStart = info.offset
      }
    } else {
      this.record = undefined
    }
    return undefined
  }

  /** A refusal when the record (or the value) being read has reached MAX_RECORD_BYTES with `bytes` of the file read. */
  tooLarge(bytes: number): ImportRefused | undefined {
    if (this.record !== undefined && bytes - this.recordStart > MAX_RECORD_BYTES) {
      return refused(
        this.path.slice(0, 6),
        `is larger than ${MAX_RECORD_BYTES} bytes of JSON; an article body may have at most ${MAX_BODY_CHARACTERS} characters`
      )
    }
    if (this.record === undefined && bytes - this.lastToken > MAX_RECORD_BYTES) {
      return refused(this.path, `is larger than ${MAX_RECORD_BYTES} bytes of JSON`)
    }
    return undefined
  }
}
