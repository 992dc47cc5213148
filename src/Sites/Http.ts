import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Sites } from "./Sites.js"

export const SitesHttpLive = HttpApiBuilder.group(Api, "sites", (handlers) =>
  Effect.gen(function* () {
    const sites = yield* Sites
    return handlers.handle("listSites", ({ urlParams }) =>
      Effect.flatMap(CurrentCredential, (credential) => sites.list(credential, urlParams))
    )
  })
).pipe(Layer.provide(Sites.Default))
