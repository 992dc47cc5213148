import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Articles } from "../Articles.js"
import { CurrentCredential } from "../Auth/CurrentCredential.js"
import { requireId } from "../Http/RequireId.js"

export const ArticlesHttpLive = HttpApiBuilder.group(Api, "articles", (handlers) =>
  Effect.gen(function* () {
    const articles = yield* Articles
    return handlers
      .handle("listArticles", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const siteId = yield* requireId(path.id, "website")
          return yield* articles.list(yield* CurrentCredential, siteId, urlParams)
        })
      )
      .handle("getArticle", ({ path }) =>
        Effect.gen(function* () {
          const id = yield* requireId(path.id, "article")
          return { data: yield* articles.get(yield* CurrentCredential, id) }
        })
      )
  })
)
