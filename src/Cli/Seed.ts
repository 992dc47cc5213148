import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { UsageError } from "./CliError.js"
import { jsonOption, load, printResult } from "./Output.js"

export const seedCommand = Command.make(
  "seed",
  {
    demo: Options.boolean("demo").pipe(
      Options.withDescription(
        "Import the built-in demo data set and print a sign-in and an API key for it; when the demo account exists already, change nothing and print a new API key."
      )
    ),
    json: jsonOption
  },
  (args) =>
    args.demo
      ? load(() => import("./Run/Seed.js")).pipe(
          Effect.flatMap((run) => run.seedDemoCommand),
          printResult(args.json)
        )
      : new UsageError({ message: "nothing to seed: use `cbs seed --demo`" })
).pipe(Command.withDescription("Import the built-in demo data set."))
