import { Effect, Ref } from "effect"
import { Article, type ArticleWithBody } from "../Domain/Article.js"
import type { Preview } from "../Domain/ArticleEdits.js"
import { ValidationError } from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { MediaStore } from "../Media/MediaStore.js"
import type { EditContext } from "./Changes.js"
import { ArticleEdits } from "./Edits.js"

/** An uploaded image: a file the request parser wrote to disk, or bytes (the agent tool's base64). */
export type ImageUpload =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }

const articleOf = (saved: ArticleWithBody) => {
  const { body: _body, protected_links: _links, ...article } = saved
  return Article.make(article)
}

/** Replacing an article's featured image, for the HTTP endpoint and the agent tool alike. */
export class FeaturedImages extends Effect.Service<FeaturedImages>()("Articles/FeaturedImages", {
  effect: Effect.gen(function* () {
    const edits = yield* ArticleEdits
    const media = yield* MediaStore

    /**
     * The new featured image, or with `dryRun` the article as it would be with it and a preview: every check runs
     * (the image's type and size, If-Match, the day's quota as it stands), and nothing is stored.
     */
    const replace = Effect.fn("FeaturedImages.replace")(function* (
      context: EditContext,
      id: ArticleId,
      source: { readonly upload?: ImageUpload | undefined; readonly url?: string | undefined },
      dryRun = false
    ) {
      const answer = (article: ArticleWithBody, preview?: Preview) =>
        preview === undefined ? { data: articleOf(article) } : { data: articleOf(article), preview }
      // Both an uploaded image and a url: the upload wins.
      if (source.upload === undefined) {
        if (source.url === undefined) return yield* new ValidationError({ message: "Send an image file or a url." })
        if (dryRun) {
          const { article, preview } = yield* edits.previewFeaturedImage(context, id, source.url)
          return answer(article, preview)
        }
        return answer(yield* edits.setFeaturedImage(context, id, source.url))
      }
      const bytes = source.upload._tag === "File" ? yield* media.readUpload(source.upload.path) : source.upload.bytes
      const image = yield* media.prepare(bytes)
      const url = yield* media.urlOf(image.name)
      if (dryRun) {
        const { article, preview } = yield* edits.previewFeaturedImage(context, id, url)
        return answer(article, preview)
      }
      // The file is written as the change's last step before it commits, and taken back if the change does not
      // commit: a refused or failed change (another account's article, the day's quota used) leaves no file behind.
      const created = yield* Ref.make(false)
      const saved = yield* edits
        .setFeaturedImage(
          context,
          id,
          url,
          Effect.flatMap(image.write, (c) => Ref.set(created, c))
        )
        .pipe(Effect.onError(() => Effect.flatMap(Ref.get(created), (c) => (c ? image.remove : Effect.void))))
      return answer(saved)
    })

    return { replace }
  })
}) {}
