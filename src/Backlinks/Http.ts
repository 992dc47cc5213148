import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Backlinks } from "./Backlinks.js"

export const BacklinksHttpLive = HttpApiBuilder.group(Api, "backlinks", (handlers) =>
  Effect.gen(function* () {
    const backlinks = yield* Backlinks
    return handlers.handle("listBacklinks", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const siteId = path.id
        return yield* backlinks.list(yield* CurrentCredential, siteId, urlParams)
      })
    )
  })
).pipe(Layer.provide(Backlinks.Default))
