import { Effect } from "effect"
import { ArticleEdits, type EditContext } from "./ArticleEdits.js"
import { Article } from "./Domain/Article.js"
import { ValidationError } from "./Domain/Errors.js"
import type { ArticleId } from "./Domain/Ids.js"
import { MediaStore } from "./Media/MediaStore.js"

/** An uploaded image: a file the request parser wrote to disk, or bytes (the agent tool's base64). */
export type ImageUpload =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }

/** Replacing an article's featured image, for the HTTP endpoint and the agent tool alike. */
export class FeaturedImages extends Effect.Service<FeaturedImages>()("FeaturedImages", {
  effect: Effect.gen(function* () {
    const edits = yield* ArticleEdits
    const media = yield* MediaStore

    const replace = Effect.fn("FeaturedImages.replace")(function* (
      context: EditContext,
      id: ArticleId,
      source: { readonly upload?: ImageUpload | undefined; readonly url?: string | undefined }
    ) {
      // Both an uploaded image and a url: the upload wins.
      const url =
        source.upload !== undefined
          ? yield* media.urlOf(
              yield* source.upload._tag === "File"
                ? media.store(source.upload.path)
                : media.storeBytes(source.upload.bytes)
            )
          : source.url !== undefined
            ? source.url
            : yield* new ValidationError({ message: "Send an image file or a url." })
      const saved = yield* edits.setFeaturedImage(context, id, url)
      const { body: _body, protected_links: _links, ...article } = saved
      return Article.make(article)
    })

    return { replace }
  })
}) {}
