import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { Forbidden, ValidationError } from "../Domain/Errors.js"
import { ListResponse } from "../Domain/Pagination.js"
import { SitesQuery } from "../Domain/Queries.js"
import { Site } from "../Domain/Site.js"

export class SitesApi extends authenticated(
  HttpApiGroup.make("sites").add(
    HttpApiEndpoint.get("listSites", "/sites")
      .setUrlParams(SitesQuery)
      .addSuccess(ListResponse(Site, "The websites, in id order."))
      .addError(Forbidden.Body)
      .addError(ValidationError.Body)
      .annotate(
        AgentTool,
        readTool({
          name: "list_sites",
          title: "List websites",
          description:
            "Lists the websites of the signed-in account, with address, language, country, scope and industry. Start here: other tools take their site_id."
        })
      )
      .annotateContext(
        endpointDescribed(
          "List the websites on the account",
          "Lists the websites of the key's account in id order. Admin keys see every account's websites and may narrow them with `account` and `website`."
        )
      )
  )
).annotateContext(
  groupDescribed("Websites", "The websites of the key's account (every account's, for an admin key).")
) {}
