import { Command, Options } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"
import { idOption } from "./Values.js"

export const backlinksCheckCommand = Command.make(
  "check",
  {
    site: idOption("site", "Check every backlink of this website (its id).").pipe(Options.optional),
    backlink: idOption("backlink", "Check this backlink (its id).").pipe(Options.optional),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Backlinks.js"),
    (run, args) => run.backlinksCheck(args)
  )
).pipe(
  Command.withDescription(
    "Check backlinks now (a website's, one, or without an option every one due) and print what each check saw."
  )
)

export const backlinksCommand = Command.make("backlinks").pipe(
  Command.withDescription("Check that backlinks still stand."),
  Command.withSubcommands([backlinksCheckCommand])
)
