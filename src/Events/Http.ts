import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Events } from "./Events.js"

export const EventsHttpLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function* () {
    const events = yield* Events
    return handlers.handle("listEvents", ({ urlParams }) =>
      Effect.flatMap(CurrentCredential, (credential) => events.list(credential, urlParams))
    )
  })
).pipe(Layer.provide(Events.Default))
