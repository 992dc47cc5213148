import { Options } from "@effect/cli"
import { commandGroup, commandsIn } from "./Commands.js"
import { idOption } from "./Values.js"

export const backlinksCheckCommand = commandsIn(() => import("./Run/Backlinks.js"))(
  "check",
  "Check backlinks now (a website's, one, or without an option every one due) and print what each check saw.",
  {
    site: idOption("site", "Check every backlink of this website (its id).").pipe(Options.optional),
    backlink: idOption("backlink", "Check this backlink (its id).").pipe(Options.optional)
  },
  (run, args) => run.backlinksCheck(args)
)

export const backlinksCommand = commandGroup("backlinks", "Check that backlinks still stand.", [backlinksCheckCommand])
