import { HttpApiBuilder, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"

/** The served description, generated from the same schemas that validate requests. */
export const openApiDocument = (): Record<string, unknown> => ({ ...OpenApi.fromApi(Api) })

export const MetaHttpLive = HttpApiBuilder.group(Api, "meta", (handlers) =>
  Effect.sync(() => {
    const document = openApiDocument()
    return handlers.handle("openapi", () => Effect.succeed(document))
  })
)
