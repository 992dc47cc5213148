import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Auth/Api.js"
import { ForbiddenBody, ValidationErrorBody } from "../Domain/Errors.js"
import { ListResponse, PageQuery } from "../Domain/Pagination.js"
import { Site } from "../Domain/Site.js"

/** The admin filters of the sites list (shared by the endpoint and the agent tool). */
export const SitesFilterFields = {
  account: Schema.optional(
    Schema.String.annotations({
      description: "Admin keys only: the customer's user id or e-mail. Any other key using it: 403 forbidden."
    })
  ),
  website: Schema.optional(
    Schema.String.annotations({
      description: "Admin keys only: part of the website URL (case-insensitive). Any other key using it: 403 forbidden."
    })
  )
}

export const SitesQuery = Schema.Struct({ ...SitesFilterFields, ...PageQuery })
export type SitesQuery = typeof SitesQuery.Type

export class SitesApi extends HttpApiGroup.make("sites")
  .add(
    HttpApiEndpoint.get("listSites", "/sites")
      .setUrlParams(SitesQuery)
      .addSuccess(ListResponse(Site, "The websites, in id order."))
      .addError(ForbiddenBody)
      .addError(ValidationErrorBody)
      .annotate(OpenApi.Summary, "List the websites on the account")
      .annotate(
        OpenApi.Description,
        "Lists the websites of the key's account in id order. Admin keys see every account's websites and may narrow them with `account` and `website`."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Websites") {}
