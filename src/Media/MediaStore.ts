import { createHash } from "node:crypto"
import { FileSystem, HttpServerResponse, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { AppConfig, mediaDirectory } from "../Config.js"
import { MAX_IMAGE_BYTES } from "../Domain/ArticleEdits.js"
import { ImageTooLarge, UnsupportedImage } from "../Domain/Errors.js"
import { PublicUrl } from "../Http/PublicUrl.js"
import { mimeOfExtension, sniffImageType } from "./ImageType.js"

/** Stored names are the SHA-256 of the content and the extension of the detected type: nothing else is served. */
const storedName = /^[0-9a-f]{64}\.(jpg|png|webp|gif|avif)$/

export class MediaStore extends Effect.Service<MediaStore>()("Media/MediaStore", {
  dependencies: [NodeContext.layer],
  effect: Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const directory = path.resolve(mediaDirectory(yield* AppConfig))
    const baseUrl = yield* PublicUrl
    yield* fs.makeDirectory(directory, { recursive: true })

    /**
     * Checks an image and names it, without writing anything: the name is the SHA-256 of the content and the
     * extension of the type its bytes show (never the file name or declared type). `write` stores it under that name
     * and tells whether it created the file (the same content may be stored already); `remove` takes back a file
     * that `write` created, for a change that did not commit.
     */
    const prepare = Effect.fn("MediaStore.prepare")(function* (bytes: Uint8Array) {
      if (bytes.length > MAX_IMAGE_BYTES) {
        return yield* new ImageTooLarge({ message: "The image is larger than 10 MiB.", limit: MAX_IMAGE_BYTES })
      }
      const type = sniffImageType(bytes.subarray(0, 64))
      if (type === undefined) {
        return yield* new UnsupportedImage({ message: "The file is not a JPEG, PNG, WebP, GIF or AVIF image." })
      }
      const name = `${createHash("sha256").update(bytes).digest("hex")}.${type.extension}`
      const target = path.join(directory, name)
      const write = Effect.gen(function* () {
        if (yield* fs.exists(target)) return false
        // Write beside the target and rename, so a reader never sees half a file.
        const temporary = `${target}.${process.pid}.${Date.now()}.tmp`
        yield* fs.writeFile(temporary, bytes)
        yield* fs.rename(temporary, target)
        return true
      }).pipe(Effect.orDie)
      const remove = fs.remove(target).pipe(Effect.ignore)
      return { name, write, remove }
    })

    /** The bytes of an uploaded file (already on disk, its size bounded while it streamed in). */
    const readUpload = (uploadPath: string) =>
      Effect.gen(function* () {
        const info = yield* fs.stat(uploadPath)
        if (Number(info.size) > MAX_IMAGE_BYTES) {
          return yield* new ImageTooLarge({ message: "The image is larger than 10 MiB.", limit: MAX_IMAGE_BYTES })
        }
        return yield* fs.readFile(uploadPath)
      }).pipe(Effect.catchTags({ BadArgument: Effect.die, SystemError: Effect.die }))

    /** The public address of a stored file. */
    const urlOf = (name: string) => Effect.succeed(`${baseUrl}/media/${name}`)

    /** A stored file as an HTTP response, or undefined when the name is not one the store could have made. */
    const respond = (name: string) =>
      Effect.gen(function* () {
        const match = storedName.exec(name)
        if (match === null) return undefined
        const file = path.join(directory, name)
        if (!(yield* fs.exists(file))) return undefined
        return yield* HttpServerResponse.file(file, {
          contentType: mimeOfExtension(match[1]!)!,
          headers: {
            "cache-control": "public, max-age=31536000, immutable",
            "x-content-type-options": "nosniff"
          }
        })
      }).pipe(Effect.orDie)

    return { prepare, readUpload, urlOf, respond }
  })
}) {}
