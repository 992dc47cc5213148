import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Api } from "../Api.js"
import { ArticleEdits } from "../ArticleEdits.js"
import { Articles } from "../Articles.js"
import { CurrentCredential, currentOrigin } from "../Auth/CurrentCredential.js"
import { type EditLimitExceeded, EditLimitExceededBody } from "../Domain/Errors.js"
import { FeaturedImages } from "../FeaturedImages.js"
import { requireId } from "../Http/RequireId.js"

const encodeEditLimit = Schema.encodeSync(EditLimitExceededBody)

/** The edit-limit 429 carries Retry-After: the seconds to the next UTC midnight. */
const retryAfterMidnight = <A, E, R>(effect: Effect.Effect<A, E | EditLimitExceeded, R>) =>
  Effect.catchIf(
    effect,
    (error): error is EditLimitExceeded =>
      typeof error === "object" && error !== null && "_tag" in error && error._tag === "EditLimitExceeded",
    (error) =>
      Effect.succeed(
        HttpServerResponse.unsafeJson(encodeEditLimit(error), {
          status: 429,
          headers: { "retry-after": String(error.retry_after ?? 1) }
        })
      )
  )

export const ArticlesHttpLive = HttpApiBuilder.group(Api, "articles", (handlers) =>
  Effect.gen(function* () {
    const articles = yield* Articles
    const edits = yield* ArticleEdits
    const featuredImages = yield* FeaturedImages
    /** Who changes the article and through which door (API, or MCP for an agent's tool call). */
    const apiContext = (reason: string | undefined) =>
      Effect.all({ credential: CurrentCredential, origin: currentOrigin }).pipe(
        Effect.map(({ credential, origin }) => ({ credential, origin, reason }))
      )

    return handlers
      .handle("listArticles", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const siteId = yield* requireId(path.id, "website")
          const page = yield* articles.list(yield* CurrentCredential, siteId, urlParams)
          // Sent as it is rather than through the success schema's encoder: the rows are plain JSON values
          // already (see ArticlesRepo.list), and encoding 100 of them cost more than the rest of the request.
          return HttpServerResponse.unsafeJson(page)
        })
      )
      .handle("getArticle", ({ path }) =>
        Effect.gen(function* () {
          const id = yield* requireId(path.id, "article")
          return { data: yield* articles.get(yield* CurrentCredential, id) }
        })
      )
      .handle("updateArticle", ({ path, payload }) =>
        Effect.gen(function* () {
          const id = yield* requireId(path.id, "article")
          return { data: yield* edits.replace(yield* apiContext(payload.reason), id, payload) }
        }).pipe(retryAfterMidnight)
      )
      .handle("patchArticle", ({ path, payload }) =>
        Effect.gen(function* () {
          const id = yield* requireId(path.id, "article")
          return { data: yield* edits.patch(yield* apiContext(payload.reason), id, payload) }
        }).pipe(retryAfterMidnight)
      )
      .handle("replaceFeaturedImage", ({ path, payload }) =>
        Effect.gen(function* () {
          const id = yield* requireId(path.id, "article")
          const image = "image" in payload ? payload.image : undefined
          const upload = image === undefined ? undefined : { _tag: "File" as const, path: image.path }
          const article = yield* featuredImages.replace(yield* apiContext(payload.reason), id, {
            upload,
            url: payload.url
          })
          return { data: article }
        }).pipe(retryAfterMidnight)
      )
  })
)
