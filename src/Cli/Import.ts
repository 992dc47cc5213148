import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import { jsonOption, load, printResult } from "./Output.js"

export const importCommand = Command.make(
  "import",
  {
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription("The JSON file to import; - reads standard input.")),
    json: jsonOption
  },
  (args) =>
    load(() => import("./Run/Import.js")).pipe(
      Effect.flatMap((run) => run.importFile(args.file)),
      printResult(args.json)
    )
).pipe(
  Command.withDescription(
    "Import accounts, websites, articles and backlinks from a JSON file, all or nothing. Importing the same file again changes nothing."
  )
)
