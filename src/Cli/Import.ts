import { Args, Command } from "@effect/cli"
import { FileSystem, Path } from "@effect/platform"
import { Console, Effect } from "effect"
import { Importer, type ImportSummary } from "../Import.js"
import { CliError } from "./CliError.js"

const labels: ReadonlyArray<readonly [keyof ImportSummary, string]> = [
  ["accounts", "accounts"],
  ["sites", "websites"],
  ["articles", "articles"],
  ["backlinks", "backlinks"]
]

/** One line per kind of record: `articles   32 created, 0 updated, 0 unchanged`. */
export const summaryLines = (summary: ImportSummary): ReadonlyArray<string> =>
  labels.map(([kind, label]) => {
    const counts = summary[kind]
    return `  ${label.padEnd(10)}${String(counts.created).padStart(4)} created, ${counts.updated} updated, ${counts.unchanged} unchanged`
  })

export const importCommand = Command.make(
  "import",
  { file: Args.file({ name: "FILE" }).pipe(Args.withDescription("The JSON file to import.")) },
  ({ file }) =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const importer = yield* Importer
      const text = yield* fs
        .readFileString(file)
        .pipe(Effect.mapError((error) => new CliError({ message: `cannot read ${file}: ${error.message}` })))
      const summary = yield* importer.importJson(text, path.basename(file))
      yield* Console.log(`Imported ${file}:`)
      for (const line of summaryLines(summary)) yield* Console.log(line)
    }).pipe(Effect.provide(Importer.Default))
).pipe(
  Command.withDescription(
    "Import accounts, websites, articles and backlinks from a JSON file, all or nothing. Importing the same file again changes nothing."
  )
)
