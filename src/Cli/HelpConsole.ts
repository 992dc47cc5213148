import type { Console } from "effect"
import { Effect } from "effect"

// ANSI escape sequences start with ESC.
const ESC = String.fromCharCode(27)
const ansi = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, "g")
// A usage line as @effect/cli writes it: `$ name …`, perhaps after colour codes.
const usageLine = new RegExp(`^(\\s*(?:${ESC}\\[[0-9;]*m)*)\\$ (\\S+)`, "gm")

export const stripAnsi = (text: string) => text.replace(ansi, "")

/** Several lines as one: an error is reported on one line. */
export const oneLine = (text: string) => text.trim().replace(/\s*\n\s*/g, " ")

/**
 * The console @effect/cli prints through while it reads the arguments. Its usage lines read `$ create --account …`;
 * here they read `cbs key create --account …`, the command as it is typed. Colour codes are left out unless `color`.
 * Its error messages are not printed: the caller reports them on one line.
 */
export const helpConsole = (
  base: Console.Console,
  options: { readonly color: boolean; readonly argv: ReadonlyArray<string> }
): Console.Console => {
  // The words that named the command: `cbs key create --help` → cbs, key, create.
  const words = ["cbs", ...options.argv.slice(2)]
  const end = words.findIndex((word, i) => i > 0 && word.startsWith("-"))
  const path = end === -1 ? words : words.slice(0, end)
  const rewrite = (text: string) =>
    (options.color ? text : stripAnsi(text)).replace(usageLine, (line, lead, name) => {
      const at = path.lastIndexOf(name)
      return at === -1 ? line : `${lead}${path.slice(0, at + 1).join(" ")}`
    })
  return {
    ...base,
    log: (...args) => base.log(...args.map((arg) => (typeof arg === "string" ? rewrite(arg) : arg))),
    error: () => Effect.void
  }
}
