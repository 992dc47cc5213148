import { HttpApiBuilder, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { type OpenApiDocument, withServer } from "../Api/OpenApiDocument.js"
import { Api } from "../Api.js"
import { PublicUrl } from "../Http/PublicUrl.js"

/**
 * The description, generated from the same schemas that validate requests. Without `base` it names the service as
 * `npm start` runs it (the committed openapi.json); served, it names the service's public address.
 */
export const openApiDocument = (base?: string): OpenApiDocument => {
  // The API's transform annotation made the framework's document into this one.
  const document = OpenApi.fromApi(Api) as unknown as OpenApiDocument
  return base === undefined ? document : withServer(document, base)
}

export const MetaHttpLive = HttpApiBuilder.group(Api, "meta", (handlers) =>
  Effect.gen(function* () {
    const document = openApiDocument(yield* PublicUrl)
    return handlers.handle("openapi", () => Effect.succeed(document))
  })
)
