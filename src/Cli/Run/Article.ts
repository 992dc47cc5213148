import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { ArticleEdits } from "../../Articles/Edits.js"
import { strictBody, UpdateArticlePayload } from "../../Domain/ArticleEdits.js"
import { fromParseError } from "../../Domain/DecodeIssues.js"
import { ArticleId } from "../../Domain/Ids.js"
import { CliError } from "../CliError.js"
import type { Result } from "../Output.js"
import { CliRepo } from "../Repo.js"
import { foundById } from "./Found.js"

export const articleRewrite = (args: {
  readonly id: number
  readonly file: string
  readonly reason: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const { id, file, reason } = args
    const fs = yield* FileSystem.FileSystem
    const repo = yield* CliRepo
    const edits = yield* ArticleEdits
    const body = yield* fs
      .readFileString(file)
      .pipe(Effect.mapError((error) => new CliError({ message: `cannot read ${file}: ${error.message}` })))
    const owner = yield* foundById(id, (id) => repo.articleOwner(ArticleId.make(id)), `no article has id ${id}`)
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
          credential: {
            kind: "user",
            id: owner.user_id,
            accountId: owner.account_id,
            isAdmin: false,
            canWrite: true
          },
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
    return {
      text: [after === before ? "The body is unchanged; no revision was stored." : `revision: ${after}`],
      json: { article_id: id, revision: after, changed: after !== before }
    } satisfies Result
  }).pipe(Effect.provide([CliRepo.Default, ArticleEdits.Default]))
