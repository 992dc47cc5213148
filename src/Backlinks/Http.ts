import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Backlinks } from "./Backlinks.js"

export const BacklinksHttpLive = HttpApiBuilder.group(Api, "backlinks", (handlers) =>
  Effect.gen(function* () {
    const backlinks = yield* Backlinks
    return handlers
      .handle("listBacklinks", ({ path, urlParams }) =>
        Effect.flatMap(CurrentCredential, (credential) => backlinks.list(credential, path.id, urlParams))
      )
      .handle("getBacklink", ({ path }) =>
        Effect.flatMap(CurrentCredential, (credential) => backlinks.get(credential, path.id))
      )
  })
).pipe(Layer.provide(Backlinks.Default))
