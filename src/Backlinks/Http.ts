import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Backlinks } from "../Backlinks.js"
import { requireId } from "../Http/RequireId.js"

export const BacklinksHttpLive = HttpApiBuilder.group(Api, "backlinks", (handlers) =>
  Effect.gen(function* () {
    const backlinks = yield* Backlinks
    return handlers.handle("listBacklinks", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const siteId = yield* requireId(path.id, "website")
        return yield* backlinks.list(yield* CurrentCredential, siteId, urlParams)
      })
    )
  })
)
