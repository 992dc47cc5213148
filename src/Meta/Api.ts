import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"

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
      .annotateContext(
        endpointDescribed(
          "This OpenAPI description",
          "The machine-readable OpenAPI 3.1 description of this interface. No credentials needed."
        )
      )
  )
  .annotateContext(groupDescribed("Description", "This OpenAPI description of the interface.")) {}
