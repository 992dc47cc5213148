import { Effect, Schema } from "effect"
import { CurrentCall, CurrentCaller, CurrentCredential, noteCall } from "../Api/Middleware.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import type { Preview } from "../Domain/ArticleEdits.js"
import type { ArticleId } from "../Domain/Ids.js"
import { Idempotency } from "../Idempotency/Idempotency.js"
import { EditResponse } from "./Api.js"
import type { EditContext } from "./Changes.js"

const encodeEditResponse = Schema.encodeSync(EditResponse)

/** What makes two writes the same request for `Idempotency-Key`: method, article, query and body. */
export const requestOf = (method: string, id: ArticleId, query: unknown, body: unknown) =>
  JSON.stringify([method, id, query, body])

export interface WriteHeaders {
  readonly "if-match"?: string | undefined
  readonly "idempotency-key"?: string | undefined
}

/** A write's answer: the article, and for a dry run the preview of the change that was not saved. */
export interface EditAnswer {
  readonly data: ArticleWithBody
  readonly preview?: Preview | undefined
}

/**
 * Who changes the article, through which door (API, or MCP for an agent's tool call), why, on what condition, and
 * the call that makes the change.
 */
export const writeContext = (reason: string | undefined, headers: WriteHeaders) =>
  Effect.all({ caller: CurrentCaller, call: CurrentCall }).pipe(
    Effect.map(
      ({ caller, call }): EditContext => ({
        credential: caller.credential,
        origin: caller.origin,
        reason,
        ifMatch: headers["if-match"],
        call
      })
    )
  )

/** The handlers' way of running an article write: at most once per Idempotency-Key, or as a dry run. */
export const articleWrites = Effect.gen(function* () {
  const idempotency = yield* Idempotency

  /**
   * The write, run at most once per Idempotency-Key when one is sent; `answer` is the JSON body of its success, as
   * the endpoint sends it (kept under the key with the change).
   */
  const once = <A, E, R>(
    headers: WriteHeaders,
    request: string,
    write: Effect.Effect<A, E, R>,
    answer: (success: A) => unknown
  ) =>
    Effect.flatMap(CurrentCredential, (credential) =>
      idempotency.once(credential, headers["idempotency-key"], request, write, (success) =>
        JSON.stringify(answer(success))
      )
    )

  /**
   * A change answered with the article (PUT, PATCH, a restore): the change, or with `dry_run=true` its preview (the
   * call noted as one); at most once per Idempotency-Key. `request` names the request for the key.
   */
  const editArticle = <E1, E2>(
    options: {
      readonly reason: string | undefined
      readonly headers: WriteHeaders
      readonly dryRun: boolean | undefined
      readonly request: string
    },
    save: (context: EditContext) => Effect.Effect<ArticleWithBody, E1>,
    preview: (
      context: EditContext
    ) => Effect.Effect<{ readonly article: ArticleWithBody; readonly preview: Preview | undefined }, E2>
  ) =>
    Effect.gen(function* () {
      const context = yield* writeContext(options.reason, options.headers)
      if (options.dryRun === true) yield* noteCall("dry_run")
      const write: Effect.Effect<EditAnswer, E1 | E2> =
        options.dryRun === true
          ? Effect.map(preview(context), ({ article, preview }) => ({ data: article, preview }))
          : Effect.map(save(context), (data) => ({ data }))
      return yield* once(options.headers, options.request, write, encodeEditResponse)
    })

  return { once, editArticle }
})
