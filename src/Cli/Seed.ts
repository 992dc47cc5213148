import { Command } from "@effect/cli"
import { UsageError } from "./CliError.js"
import { jsonOption, loadAndPrint } from "./Output.js"
import { flagOption } from "./Values.js"

export const seedCommand = Command.make(
  "seed",
  {
    demo: flagOption(
      "demo",
      "Import the built-in demo data set and print a sign-in and an API key for it; when the demo account exists already, change nothing and print a new API key."
    ),
    json: jsonOption
  },
  (args) =>
    args.demo
      ? loadAndPrint(
          () => import("./Run/Seed.js"),
          (run) => run.seedDemoCommand
        )(args)
      : new UsageError({ message: "nothing to seed: use `cbs seed --demo`" })
).pipe(Command.withDescription("Import the built-in demo data set."))
