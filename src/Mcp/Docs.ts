import { HttpApi, OpenApi } from "@effect/platform"
import { Context, Option } from "effect"
import { Api } from "../Api.js"

export interface EndpointDoc {
  readonly summary: string
  readonly description: string
}

/**
 * The summary and description of every endpoint, by "group.endpoint", read from the API definition so that an
 * agent tool is documented in the very words of the endpoint it runs.
 */
export const endpointDocs = (): ReadonlyMap<string, EndpointDoc> => {
  const docs = new Map<string, EndpointDoc>()
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ group, endpoint }) => {
      const summary = Context.getOption(endpoint.annotations, OpenApi.Summary)
      const description = Context.getOption(endpoint.annotations, OpenApi.Description)
      docs.set(`${group.identifier}.${endpoint.name}`, {
        summary: Option.getOrElse(summary, () => endpoint.name),
        description: Option.getOrElse(description, () => "")
      })
    }
  })
  return docs
}
