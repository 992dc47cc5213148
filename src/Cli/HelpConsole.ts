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

/** A section heading of @effect/cli's help: a word in capitals, alone on its line. */
const isHeading = (line: string) => /^[A-Z][A-Z ]+$/.test(stripAnsi(line).trim()) && !/^\s/.test(stripAnsi(line))

/** Lines @effect/cli adds to every option's description, which say nothing the option's own line does not. */
const boilerplate = /^(This setting is optional\.|A true or false value\.|One of the following: .*)$/

/**
 * The program's own help (`cbs --help`) with its commands first, right after its description, and the options that
 * every command takes after them, one line each: @effect/cli puts five of those, at five lines apiece, before the
 * commands. Any other help is left as it is.
 */
export const commandsFirst = (text: string) => {
  const lines = text.split("\n")
  const at = (name: string) => lines.findIndex((line) => stripAnsi(line).trim() === name && isHeading(line))
  const options = at("OPTIONS")
  const commands = at("COMMANDS")
  if (options === -1 || commands === -1 || commands < options) return text
  const next = lines.findIndex((line, i) => i > commands && isHeading(line))
  const end = next === -1 ? lines.length : next
  const entries: Array<{ name: string; description?: string }> = []
  for (const line of lines.slice(options + 1, commands)) {
    const plain = stripAnsi(line)
    if (plain.trim() === "") continue
    if (!/^\s/.test(plain)) entries.push({ name: plain.trim() })
    else if (entries.length > 0 && entries.at(-1)!.description === undefined && !boilerplate.test(plain.trim())) {
      entries.at(-1)!.description = plain.trim()
    }
  }
  const width = Math.max(...entries.map((entry) => entry.name.length))
  const optionLines = entries.map((entry) => `  ${entry.name.padEnd(width)}  ${entry.description ?? ""}`.trimEnd())
  return [
    ...lines.slice(0, options),
    ...lines.slice(commands, end),
    ...(lines[end - 1]?.trim() === "" ? [] : [""]),
    "OPTIONS OF EVERY COMMAND",
    "",
    ...optionLines,
    ...(end < lines.length ? ["", ...lines.slice(end)] : [""])
  ].join("\n")
}

/**
 * The console @effect/cli prints through while it reads the arguments. Its usage lines read `$ create --account …`;
 * here they read `cbs key create --account …`, the command as it is typed; the program's own help lists its commands
 * first. Colour codes are left out unless `color`.
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
    commandsFirst(options.color ? text : stripAnsi(text)).replace(usageLine, (line, lead, name) => {
      const at = path.lastIndexOf(name)
      return at === -1 ? line : `${lead}${path.slice(0, at + 1).join(" ")}`
    })
  return {
    ...base,
    log: (...args) => base.log(...args.map((arg) => (typeof arg === "string" ? rewrite(arg) : arg))),
    error: () => Effect.void
  }
}
