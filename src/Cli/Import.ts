import { Args } from "@effect/cli"
import { commandsIn } from "./Commands.js"

export const importCommand = commandsIn(() => import("./Run/Import.js"))(
  "import",
  "Import accounts, websites, articles and backlinks from a JSON file, all or nothing. Importing the same file again changes nothing.",
  { file: Args.text({ name: "FILE" }).pipe(Args.withDescription("The JSON file to import; - reads standard input.")) },
  (run, args) => run.importFile(args.file)
)
