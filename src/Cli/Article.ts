import { Command, Options } from "@effect/cli"
import { jsonOption, loadAndPrint } from "./Output.js"
import { idOption, textOption } from "./Values.js"

/**
 * `cbs article rewrite`: an operator stores a rewritten body through the same service call as the API (sanitiser,
 * protected-link check, edit limit), with origin `rewrite`, as the article's account's first user.
 */
const rewrite = Command.make(
  "rewrite",
  {
    id: idOption("id", "The article's id."),
    file: Options.file("file").pipe(
      Options.withPseudoName("F"),
      Options.withDescription("An HTML file with the new body.")
    ),
    reason: textOption("reason", "R", "Why the article was rewritten (kept with the revision).").pipe(Options.optional),
    json: jsonOption
  },
  loadAndPrint(
    () => import("./Run/Article.js"),
    (run, args) => run.articleRewrite(args)
  )
).pipe(Command.withDescription("Store a rewritten HTML body for an article (origin rewrite); prints the revision."))

export const articleCommand = Command.make("article").pipe(
  Command.withDescription("Operate on articles."),
  Command.withSubcommands([rewrite])
)
