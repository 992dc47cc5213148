import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { authenticated } from "../Api/Middleware.js"
import { ForbiddenBody, ValidationErrorBody } from "../Domain/Errors.js"
import { ListResponse, PageQuery } from "../Domain/Pagination.js"
import { Site } from "../Domain/Site.js"
import { Text } from "../Domain/Text.js"
import { AgentTool } from "../Http/AgentTool.js"

/** The admin filters of the sites list (shared by the endpoint and the agent tool). */
export const SitesFilterFields = {
  account: Schema.optional(
    Text.annotations({
      description: "Admins only (others: forbidden): the customer's user id or e-mail."
    })
  ),
  website: Schema.optional(
    Text.annotations({
      description: "Admins only (others: forbidden): part of the website address, any case."
    })
  )
}

export const SitesQuery = Schema.Struct({ ...SitesFilterFields, ...PageQuery })
export type SitesQuery = typeof SitesQuery.Type

export class SitesApi extends authenticated(
  HttpApiGroup.make("sites").add(
    HttpApiEndpoint.get("listSites", "/sites")
      .setUrlParams(SitesQuery)
      .addSuccess(ListResponse(Site, "The websites, in id order."))
      .addError(ForbiddenBody)
      .addError(ValidationErrorBody)
      .annotate(AgentTool, {
        name: "list_sites",
        title: "List websites",
        description:
          "Lists the websites of the signed-in account, with address, language, country, scope and industry. Start here: other tools take their site_id.",
        readOnly: true,
        idempotent: true
      })
      .annotate(OpenApi.Summary, "List the websites on the account")
      .annotate(
        OpenApi.Description,
        "Lists the websites of the key's account in id order. Admin keys see every account's websites and may narrow them with `account` and `website`."
      )
  )
).annotate(OpenApi.Title, "Websites") {}
