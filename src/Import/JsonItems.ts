import type { Readable } from "node:stream"
import { JSONParser } from "@streamparser/json"
import { Stream } from "effect"
import { ImportRefused } from "./ImportRefused.js"
import { JsonPosition } from "./JsonPosition.js"
import { refused } from "./Prepare.js"

/**
 * What an import file holds, read as a stream: each article and backlink as the parser reaches its end, and at the
 * end the file itself without them (every account and website with its own fields, and empty `articles` and
 * `backlinks`). `bytes` is how much of the file had been read by then.
 */
export type JsonItem =
  | {
      readonly kind: "articles" | "backlinks"
      readonly account: number
      readonly site: number
      readonly index: number
      readonly value: unknown
      readonly bytes: number
    }
  | { readonly kind: "file"; readonly value: unknown; readonly bytes: number }

interface StackEntry {
  readonly key?: string | number | undefined
  readonly value?: unknown
}

/**
 * Where a record sits: `accounts[a].sites[s].articles[i]` (or `backlinks`). The parser's entry `j` holds the
 * container being built at depth `j - 1` and the key descended into; each container on the way must be an array, or
 * `*` in the paths would have matched an object's members.
 */
const locate = (
  kind: "articles" | "backlinks",
  stack: ReadonlyArray<StackEntry>,
  parent: unknown,
  key: string | number | undefined
) => {
  const account = stack[2]?.key
  const site = stack[4]?.key
  if (!Array.isArray(stack[2]?.value)) throw refused(["accounts"], "must be an array of accounts")
  if (!Array.isArray(stack[4]?.value)) throw refused(["accounts", account!, "sites"], "must be an array of websites")
  if (!Array.isArray(parent)) throw refused(["accounts", account!, "sites", site!, kind], `must be an array of ${kind}`)
  return { kind, account: Number(account), site: Number(site), index: Number(key) }
}

const notJson = (error: unknown) =>
  error instanceof ImportRefused
    ? error
    : new ImportRefused({
        path: "",
        reason: `the file is not valid JSON (${error instanceof Error ? error.message : String(error)})`
      })

/** The file is handed to the parser in slices of at most this many bytes, so that a bound is checked this often. */
const SLICE_BYTES = 64 * 1024

/**
 * Reads an import file from `open()` as a stream of `JsonItem`s, holding no more than one chunk of the file and the
 * records found in it: each article and backlink is dropped from its website once it is handed on. A file that is
 * not JSON, or whose records are not in arrays, fails with `ImportRefused`; so does one with a NUL in a string, JSON
 * nested deeper than the API takes, or a record (or a value outside records) larger than MAX_RECORD_BYTES, which
 * is refused before the parser holds more of it than that.
 */
export const readJsonItems = (open: () => Readable): Stream.Stream<JsonItem, ImportRefused> =>
  Stream.fromAsyncIterable(
    (async function* () {
      // The file itself (`$`) is selected too, so that the parser keeps every account's and website's own fields;
      // their records are dropped by hand (as the parser does itself with keepStack false when no ancestor is).
      const parser = new JSONParser({
        paths: ["$.accounts.*.sites.*.articles.*", "$.accounts.*.sites.*.backlinks.*", "$"],
        keepStack: false
      })
      let bytes = 0
      let found: Array<JsonItem> = []
      parser.onValue = ({ value, key, parent, stack }) => {
        if (stack.length === 0) {
          found.push({ kind: "file", value, bytes })
          return
        }
        const kind = stack[5]?.key === "articles" ? "articles" : "backlinks"
        found.push({ ...locate(kind, stack, parent, key), value, bytes })
        if (Array.isArray(parent)) parent.length = 0
      }
      parser.onError = (error) => {
        throw error
      }
      const position = new JsonPosition()
      parser.onToken = (token) => {
        const refusal = position.see(token)
        if (refusal !== undefined) throw refusal
      }
      const input = open()
      try {
        for await (const chunk of input) {
          for (let at = 0; at < (chunk as Buffer).length; at += SLICE_BYTES) {
            const slice = (chunk as Buffer).subarray(at, at + SLICE_BYTES)
            bytes += slice.length
            parser.write(slice)
            const refusal = position.tooLarge(bytes)
            if (refusal !== undefined) throw refusal
          }
          const items = found
          found = []
          yield* items
        }
        if (!parser.isEnded) parser.end()
        yield* found
      } finally {
        input.destroy()
      }
    })(),
    notJson
  )
