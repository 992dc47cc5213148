import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { MediaStore } from "./MediaStore.js"

/** `GET /media/<sha256>.<ext>`: uploaded images, immutable, with their detected Content-Type. */
export const MediaRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const media = yield* MediaStore
    yield* router.get(
      "/media/:name",
      Effect.gen(function* () {
        const { name } = yield* HttpRouter.params
        const response = yield* media.respond(name ?? "")
        return (
          response ??
          HttpServerResponse.unsafeJson({ error: "not_found", message: "No such media file." }, { status: 404 })
        )
      })
    )
  })
)
