import { Effect, Ref } from "effect"
import { Article, type ArticleWithBody } from "../Domain/Article.js"
import { ValidationError } from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { MediaStore } from "../Media/MediaStore.js"
import { ArticleEdits, type EditContext } from "./Edits.js"

/** An uploaded image: a file the request parser wrote to disk, or bytes (the agent tool's base64). */
export type ImageUpload =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }

const articleOf = (saved: ArticleWithBody) => {
  const { body: _body, protected_links: _links, ...article } = saved
  return Article.make(article)
}

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
      if (source.upload === undefined) {
        if (source.url === undefined) return yield* new ValidationError({ message: "Send an image file or a url." })
        return articleOf(yield* edits.setFeaturedImage(context, id, source.url))
      }
      const bytes = source.upload._tag === "File" ? yield* media.readUpload(source.upload.path) : source.upload.bytes
      const image = yield* media.prepare(bytes)
      // The file is written as the change's last step before it commits, and taken back if the change does not
      // commit: a refused or failed change (another account's article, the day's quota used) leaves no file behind.
      const created = yield* Ref.make(false)
      const saved = yield* edits
        .setFeaturedImage(
          context,
          id,
          yield* media.urlOf(image.name),
          Effect.flatMap(image.write, (c) => Ref.set(created, c))
        )
        .pipe(Effect.onError(() => Effect.flatMap(Ref.get(created), (c) => (c ? image.remove : Effect.void))))
      return articleOf(saved)
    })

    return { replace }
  })
}) {}
