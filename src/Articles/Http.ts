import { createHash } from "node:crypto"
import { FileSystem, HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { CurrentCredential, noteCall } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import type { ArticleWithBody } from "../Domain/Article.js"
import { etagOf, PatchArticlePayload, type Preview, UpdateArticlePayload } from "../Domain/ArticleEdits.js"
import type { ArticleId } from "../Domain/Ids.js"
import { Idempotency } from "../Idempotency/Idempotency.js"
import { FeaturedImageResponse } from "./Api.js"
import { Articles } from "./Articles.js"
import type { EditContext } from "./Changes.js"
import { ArticleEdits } from "./Edits.js"
import { FeaturedImages } from "./FeaturedImages.js"
import { articleWrites, requestOf, type WriteHeaders, writeContext } from "./WriteHandlers.js"

const encodeFeaturedImageResponse = Schema.encodeSync(FeaturedImageResponse)
const encodeUpdate = Schema.encodeSync(UpdateArticlePayload)
const encodePatch = Schema.encodeSync(PatchArticlePayload)

export const ArticlesHttpLive = HttpApiBuilder.group(Api, "articles", (handlers) =>
  Effect.gen(function* () {
    const articles = yield* Articles
    const edits = yield* ArticleEdits
    const featuredImages = yield* FeaturedImages
    const { once, editArticle } = yield* articleWrites
    const fs = yield* FileSystem.FileSystem

    /** PUT and PATCH: the change, or with `dry_run=true` its preview; at most once per Idempotency-Key. */
    const bodyEdit = <P extends { readonly reason?: string | undefined }, E1, E2>(
      request: {
        readonly path: { readonly id: ArticleId }
        readonly payload: P
        readonly urlParams: { readonly dry_run?: boolean | undefined }
        readonly headers: WriteHeaders
      },
      method: string,
      encode: (payload: P) => unknown,
      save: (context: EditContext, id: ArticleId, payload: P) => Effect.Effect<ArticleWithBody, E1>,
      preview: (
        context: EditContext,
        id: ArticleId,
        payload: P
      ) => Effect.Effect<{ readonly article: ArticleWithBody; readonly preview: Preview | undefined }, E2>
    ) => {
      const { path, payload, urlParams, headers } = request
      return editArticle(
        {
          reason: payload.reason,
          headers,
          dryRun: urlParams.dry_run,
          request: requestOf(method, path.id, urlParams, encode(payload))
        },
        (context) => save(context, path.id, payload),
        (context) => preview(context, path.id, payload)
      )
    }

    return handlers
      .handle("listArticles", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const siteId = path.id
          const { data, meta } = yield* articles.listJson(yield* CurrentCredential, siteId, urlParams)
          // Sent as the database wrote it rather than through the success schema's encoder (see ArticlesRepo.list):
          // decoding and encoding 100 rows cost more than the rest of the request.
          return HttpServerResponse.text(`{"data":${data},"meta":${JSON.stringify(meta)}}`, {
            contentType: "application/json"
          })
        })
      )
      .handle("getArticle", ({ path }) =>
        Effect.gen(function* () {
          const id = path.id
          const article = yield* articles.get(yield* CurrentCredential, id)
          yield* HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.succeed(
              response.status === 200
                ? HttpServerResponse.setHeader(response, "etag", etagOf(article.revision))
                : response
            )
          )
          return { data: article }
        })
      )
      .handle("updateArticle", (request) => bodyEdit(request, "PUT", encodeUpdate, edits.replace, edits.previewReplace))
      .handle("patchArticle", (request) => bodyEdit(request, "PATCH", encodePatch, edits.patch, edits.previewPatch))
      .handle("replaceFeaturedImage", ({ path, payload, urlParams, headers }) =>
        Effect.gen(function* () {
          const id = path.id
          const image = "image" in payload ? payload.image : undefined
          // A retry sends the same file again: the request is the same when the file's content is.
          const imageDigest =
            image === undefined
              ? null
              : createHash("sha256")
                  .update(yield* fs.readFile(image.path).pipe(Effect.orDie))
                  .digest("hex")
          const upload = image === undefined ? undefined : { _tag: "File" as const, path: image.path }
          const context = yield* writeContext(payload.reason, headers)
          if (urlParams.dry_run === true) yield* noteCall("dry_run")
          const write = featuredImages.replace(context, id, { upload, url: payload.url }, urlParams.dry_run === true)
          const body = { image: imageDigest, url: payload.url ?? null, reason: payload.reason ?? null }
          return yield* once(headers, requestOf("POST", id, urlParams, body), write, encodeFeaturedImageResponse)
        })
      )
  })
).pipe(Layer.provide([Articles.Default, ArticleEdits.Default, FeaturedImages.Default, Idempotency.Default]))
