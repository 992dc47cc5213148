import { createReadStream, createWriteStream } from "node:fs"
import { pipeline } from "node:stream/promises"
import { FileSystem, Path } from "@effect/platform"
import { Console, Effect } from "effect"
import { Importer, type ImportSource, type ImportSummary } from "../../Import/Import.js"
import { CliError } from "../CliError.js"
import type { Result } from "../Output.js"
import { importProgress } from "../Progress.js"
import { Stdin } from "../Stdin.js"

const labels: ReadonlyArray<readonly [keyof ImportSummary, string]> = [
  ["accounts", "accounts"],
  ["sites", "websites"],
  ["articles", "articles"],
  ["backlinks", "backlinks"]
]

type Column = "created" | "updated" | "unchanged"

/** One line per kind of record, each column as wide as its largest count: `articles   32 created, 0 updated, …`. */
export const summaryLines = (summary: ImportSummary): ReadonlyArray<string> => {
  const width = (column: Column) =>
    Math.max(column === "created" ? 4 : 1, ...labels.map(([kind]) => String(summary[kind][column]).length))
  return labels.map(([kind, label]) => {
    const cell = (column: Column) => String(summary[kind][column]).padStart(width(column))
    return `  ${label.padEnd(10)}${cell("created")} created, ${cell("updated")} updated, ${cell("unchanged")} unchanged`
  })
}

const cannotRead = (file: string) => (error: { readonly message: string }) =>
  new CliError({ message: `cannot read ${file}: ${error.message}` })

/** A file to import, read from disk at each reading. */
const fromFile = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const info = yield* fs.stat(file).pipe(Effect.mapError(cannotRead(file)))
    if (info.type !== "File") return yield* new CliError({ message: `cannot read ${file}: not a file` })
    yield* fs.access(file, { readable: true }).pipe(Effect.mapError(cannotRead(file)))
    return {
      open: () => createReadStream(file),
      size: Number(info.size),
      name: path.basename(file)
    } satisfies ImportSource
  })

/**
 * Standard input, written to a temporary file as it comes (removed at the end), since an import reads its file
 * twice: once to check it, once to write it.
 */
const fromStdin = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const stdin = yield* Stdin
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "cbs-import-" })
  const file = path.join(dir, "stdin.json")
  yield* Effect.tryPromise({
    try: (signal) => pipeline(stdin.readable, createWriteStream(file), { signal }),
    catch: (error) => cannotRead("standard input")({ message: error instanceof Error ? error.message : String(error) })
  })
  const info = yield* fs.stat(file).pipe(Effect.mapError(cannotRead("standard input")))
  return { open: () => createReadStream(file), size: Number(info.size), name: "standard input" } satisfies ImportSource
})

/** `cbs import FILE`, or `cbs import -` for standard input. */
export const importFile = (file: string) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    const stdin = file === "-"
    const source = stdin ? yield* fromStdin : yield* fromFile(file)
    const shown = stdin ? "standard input" : file
    const progress = importProgress(`Importing ${shown}`, process.stderr.isTTY === true)
    const summary = yield* importer.importSource(source, progress.report).pipe(
      Effect.ensuring(progress.end),
      Effect.onInterrupt(() => Console.error("cbs: interrupted: nothing was imported"))
    )
    return {
      text: [`Imported ${shown}:`, ...summaryLines(summary)],
      json: { file: stdin ? "-" : file, ...summary }
    } satisfies Result
  }).pipe(Effect.scoped, Effect.provide(Importer.Default))
