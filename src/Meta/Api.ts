import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: "An OpenAPI 3.1 document.",
  jsonSchema: { type: "object" }
})

export class MetaApi extends HttpApiGroup.make("meta")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotate(OpenApi.Summary, "This OpenAPI description")
      .annotate(
        OpenApi.Description,
        "The machine-readable OpenAPI 3.1 description of this interface. No credentials needed."
      )
  )
  .annotate(OpenApi.Title, "Description") {}
