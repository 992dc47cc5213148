import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { NotFound } from "../Domain/Errors.js"
import { errorResponse } from "../Http/ErrorResponse.js"
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
        return response ?? errorResponse(new NotFound({ message: "No such media file." }))
      })
    )
  })
)
