import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { siteRead } from "../Api/SiteRead.js"
import { Backlink } from "../Domain/Backlink.js"
import { ListResponse } from "../Domain/Pagination.js"
import { BacklinksQuery } from "../Domain/Queries.js"

export class BacklinksApi extends authenticated(
  HttpApiGroup.make("backlinks").add(
    siteRead(HttpApiEndpoint.get("listBacklinks", "/sites/:id/backlinks"))
      .setUrlParams(BacklinksQuery)
      .addSuccess(ListResponse(Backlink, "Backlinks, newest acquired_at first, then id descending."))
      .annotate(
        AgentTool,
        readTool({
          name: "list_backlinks",
          title: "List a website's backlinks",
          description:
            "Lists the backlinks acquired for a website, newest first, each industry or local, with source, target, anchor and status.",
          pathArgs: { id: "site_id" }
        })
      )
      .annotateContext(
        endpointDescribed(
          "List a website's backlinks",
          "Lists the backlinks acquired for a website, each with its category (industry or local), newest `acquired_at` first, then by id descending. `from`/`to` filter on `acquired_at` (UTC days, inclusive; either alone bounds only its side)."
        )
      )
  )
).annotateContext(groupDescribed("Backlinks", "The backlinks acquired for a website, industry and local.")) {}
