import { Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Option, Schema } from "effect"
import { ArticleEdits } from "../Articles/Edits.js"
import { strictBody, UpdateArticlePayload } from "../Domain/ArticleEdits.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { ArticleId } from "../Domain/Ids.js"
import { CliError } from "./CliError.js"
import { CliRepo } from "./Repo.js"

/**
 * `cbs article rewrite`: an operator stores a rewritten body through the same service call as the API (sanitiser,
 * protected-link check, edit limit), with origin `rewrite`, as the article's account's first user.
 */
const rewrite = Command.make(
  "rewrite",
  {
    id: Options.integer("id").pipe(Options.withDescription("The article's id.")),
    file: Options.file("file").pipe(Options.withDescription("An HTML file with the new body.")),
    reason: Options.text("reason").pipe(
      Options.withDescription("Why the article was rewritten (kept with the revision)."),
      Options.optional
    )
  },
  ({ id, file, reason }) =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const repo = yield* CliRepo
      const edits = yield* ArticleEdits
      const body = yield* fs
        .readFileString(file)
        .pipe(Effect.mapError((error) => new CliError({ message: `cannot read ${file}: ${error.message}` })))
      const owner = id > 0 && Number.isSafeInteger(id) ? yield* repo.articleOwner(ArticleId.make(id)) : Option.none()
      if (Option.isNone(owner)) return yield* new CliError({ message: `no article has id ${id}` })
      const articleId = ArticleId.make(id)
      // The same payload, bounds and messages as PUT /api/v1/articles/{id}.
      const payload = yield* Schema.decodeUnknown(strictBody(UpdateArticlePayload))({
        body,
        ...(Option.isSome(reason) ? { reason: reason.value } : {})
      }).pipe(Effect.mapError((error) => new CliError({ message: fromParseError(error).message })))
      const latest = Effect.map(edits.history(articleId), (rows) => rows[0]?.number ?? 0)
      const before = yield* latest
      yield* edits
        .replace(
          {
            credential: { kind: "user", id: owner.value.user_id, accountId: owner.value.account_id, isAdmin: false },
            origin: "rewrite",
            reason: payload.reason
          },
          articleId,
          payload
        )
        .pipe(
          Effect.catchTag("ProtectedLinkViolation", (error) =>
            Effect.fail(
              new CliError({
                message: `${error.message} Concerned: ${error.protected_links
                  .map((link) => `${link.type} "${link.text}" -> ${link.href}`)
                  .join("; ")}`
              })
            )
          )
        )
      const after = yield* latest
      yield* Console.log(after === before ? "The body is unchanged; no revision was stored." : `revision: ${after}`)
    }).pipe(Effect.provide([CliRepo.Default, ArticleEdits.Default]))
).pipe(Command.withDescription("Store a rewritten HTML body for an article (origin rewrite); prints the revision."))

export const articleCommand = Command.make("article").pipe(
  Command.withDescription("Operate on articles."),
  Command.withSubcommands([rewrite])
)
