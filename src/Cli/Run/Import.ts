import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { Importer, type ImportSummary } from "../../Import.js"
import { CliError } from "../CliError.js"
import type { Result } from "../Output.js"
import { Stdin } from "../Stdin.js"

const labels: ReadonlyArray<readonly [keyof ImportSummary, string]> = [
  ["accounts", "accounts"],
  ["sites", "websites"],
  ["articles", "articles"],
  ["backlinks", "backlinks"]
]

/** One line per kind of record, the columns as wide as the largest count: `articles   32 created, 0 updated, …`. */
export const summaryLines = (summary: ImportSummary): ReadonlyArray<string> => {
  const width = (key: "created" | "updated" | "unchanged") =>
    Math.max(key === "created" ? 4 : 1, ...labels.map(([kind]) => String(summary[kind][key]).length))
  return labels.map(([kind, label]) => {
    const counts = summary[kind]
    const column = (key: "created" | "updated" | "unchanged") => String(counts[key]).padStart(width(key))
    return `  ${label.padEnd(10)}${column("created")} created, ${column("updated")} updated, ${column("unchanged")} unchanged`
  })
}

export const importFile = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const importer = yield* Importer
    const fromStdin = file === "-"
    const text = fromStdin
      ? yield* Effect.flatMap(Stdin, (stdin) => stdin.text)
      : yield* fs
          .readFileString(file)
          .pipe(Effect.mapError((error) => new CliError({ message: `cannot read ${file}: ${error.message}` })))
    const source = fromStdin ? "standard input" : path.basename(file)
    const summary = yield* importer.importJson(text, source)
    return {
      text: [`Imported ${fromStdin ? "standard input" : file}:`, ...summaryLines(summary)],
      json: { file: fromStdin ? "-" : file, ...summary }
    } satisfies Result
  }).pipe(Effect.provide(Importer.Default))
