import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import type { EditContext } from "../Articles/Changes.js"
import { FeaturedImages } from "../Articles/FeaturedImages.js"
import { FeaturedImageMultipart } from "../Domain/ArticleEdits.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { articleView } from "./ArticleView.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther } from "./Layout.js"

/** The featured-image form's text fields, decoded by the endpoint's own schema. */
const decodeImageFields = (fields: unknown) =>
  Schema.decodeUnknown(FeaturedImageMultipart.omit("image"))(fields).pipe(Effect.mapError(fromParseError))

/**
 * The featured image from the article page (`POST /articles/:id/featured-image`): an uploaded file or an address,
 * through the endpoint's own service (the same types by content, 10 MiB, one revision).
 */
export const FeaturedImageRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const featuredImages = yield* FeaturedImages
    const { routeArticle, showArticle } = yield* articleView

    yield* router.post(
      "/articles/:id/featured-image",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        return yield* guard.upload(`/articles/${params.id ?? ""}`, (viewer, form, files) =>
          Effect.gen(function* () {
            const article = yield* routeArticle(viewer)
            if (Option.isNone(article)) return notFoundPage(viewer, "article")
            const current = article.value
            const outcome = yield* Effect.either(
              Effect.gen(function* () {
                // A form sent without a file chosen still has an empty file part.
                const file = files.find((part) => part.key === "image" && part.name !== "")
                const url = (form.get("url") ?? "").trim()
                const reason = (form.get("reason") ?? "").trim()
                const fields = yield* decodeImageFields({
                  ...(url === "" ? {} : { url }),
                  ...(reason === "" ? {} : { reason })
                })
                const context: EditContext = { credential: viewer.credential, origin: "editor", reason: fields.reason }
                const upload = file === undefined ? undefined : ({ _tag: "File", path: file.path } as const)
                return yield* featuredImages.replace(context, current.id, { upload, url: fields.url })
              })
            )
            if (Either.isLeft(outcome)) {
              if (outcome.left._tag === "NotFound") return notFoundPage(viewer, "article")
              return yield* showArticle(viewer, current, { failure: outcome.left })
            }
            return seeOther(`/articles/${current.id}?saved=${outcome.right.data.revision}`)
          })
        )
      })
    )
  })
)
