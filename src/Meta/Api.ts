import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

const DOCUMENT_DESCRIPTION = "An OpenAPI 3.1 document."

export const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: DOCUMENT_DESCRIPTION,
  jsonSchema: {
    type: "object",
    description: DOCUMENT_DESCRIPTION,
    required: ["openapi", "info", "paths"],
    properties: {
      openapi: { type: "string", description: "The OpenAPI version, 3.1.x." },
      info: { type: "object", description: "The interface's title, version and description." },
      paths: { type: "object", description: "The interface's operations, by path." }
    },
    additionalProperties: true
  }
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
  .annotate(OpenApi.Title, "Description")
  .annotate(OpenApi.Description, "This OpenAPI description of the interface.") {}
