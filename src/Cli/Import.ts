import { Args, Command } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"

export const importCommand = Command.make(
  "import",
  {
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription("The JSON file to import; - reads standard input.")),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Import.js"),
    (run, args) => run.importFile(args.file)
  )
).pipe(
  Command.withDescription(
    "Import accounts, websites, articles and backlinks from a JSON file, all or nothing. Importing the same file again changes nothing."
  )
)
