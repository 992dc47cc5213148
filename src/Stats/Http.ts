import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Stats } from "./Stats.js"

export const StatsHttpLive = HttpApiBuilder.group(Api, "stats", (handlers) =>
  Effect.gen(function* () {
    const stats = yield* Stats
    return handlers.handle("getStats", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const siteId = path.id
        return { data: yield* stats.get(yield* CurrentCredential, siteId, urlParams) }
      })
    )
  })
).pipe(Layer.provide(Stats.Default))
