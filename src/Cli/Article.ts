import { Options } from "@effect/cli"
import { commandGroup, commandsIn } from "./Commands.js"
import { idOption, textOption } from "./Values.js"

/**
 * `cbs article rewrite`: an operator stores a rewritten body through the same service call as the API (sanitiser,
 * protected-link check, edit limit), with origin `rewrite`, as the article's account's first user.
 */
const rewrite = commandsIn(() => import("./Run/Article.js"))(
  "rewrite",
  "Store a rewritten HTML body for an article (origin rewrite); prints the revision.",
  {
    id: idOption("id", "The article's id."),
    file: Options.file("file").pipe(
      Options.withPseudoName("F"),
      Options.withDescription("An HTML file with the new body.")
    ),
    reason: textOption("reason", "R", "Why the article was rewritten (kept with the revision).").pipe(Options.optional)
  },
  (run, args) => run.articleRewrite(args)
)

export const articleCommand = commandGroup("article", "Operate on articles.", [rewrite])
