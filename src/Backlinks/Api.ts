import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { BacklinkPath } from "../Api/Paths.js"
import { recordRead } from "../Api/RecordRead.js"
import { siteRead } from "../Api/SiteRead.js"
import { Backlink, BacklinkWithChecks, SHOWN_CHECKS } from "../Domain/Backlink.js"
import { ListResponse } from "../Domain/Pagination.js"
import { BacklinksQuery } from "../Domain/Queries.js"

export class BacklinksApi extends authenticated(
  HttpApiGroup.make("backlinks")
    .add(
      siteRead(HttpApiEndpoint.get("listBacklinks", "/sites/:id/backlinks"))
        .setUrlParams(BacklinksQuery)
        .addSuccess(ListResponse(Backlink, "Backlinks, newest acquired_at first, then id descending."))
        .annotate(
          AgentTool,
          readTool({
            name: "list_backlinks",
            title: "List a website's backlinks",
            description:
              "Lists the backlinks acquired for a website, newest first, each industry or local, with source, target, anchor, status and health (when last checked, why lost, rel, indexable). status=lost finds the lost ones.",
            pathArgs: { id: "site_id" }
          })
        )
        .annotateContext(
          endpointDescribed(
            "List a website's backlinks",
            "Lists the backlinks acquired for a website, each with its category (industry or local) and its health as the service's link checks last saw it, newest `acquired_at` first, then by id descending. `from`/`to` filter on `acquired_at` (UTC days, inclusive; either alone bounds only its side); `status` keeps one status (pending, live or lost)."
          )
        )
    )
    .add(
      recordRead(HttpApiEndpoint.get("getBacklink", "/backlinks/:id"), BacklinkPath, BacklinkWithChecks)
        .annotate(
          AgentTool,
          readTool({
            name: "get_backlink",
            title: "Read a backlink and its checks",
            description: `Reads one backlink with its last ${SHOWN_CHECKS} checks (newest first): what each saw (found, page_not_found, link_removed, redirected_away, unreachable), the status code, rel and anchor text found.`,
            pathArgs: { id: "backlink_id" }
          })
        )
        .annotateContext(
          endpointDescribed(
            "Read a backlink with its checks",
            `Returns one backlink with its website's id and its last ${SHOWN_CHECKS} checks, newest first. The service checks every backlink: it fetches the source page (or reads the article, when the source is one held here) and looks for a link to the target; a backlink is lost once a check finds the page without the link, or once failures are confirmed (a 404 or 410 seen twice at least an hour apart; no answer three times over at least 24 hours). Checks are kept 90 days.`
          )
        )
    )
).annotateContext(groupDescribed("Backlinks", "The backlinks acquired for a website, industry and local.")) {}
