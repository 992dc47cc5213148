import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { siteRead } from "../Api/SiteRead.js"
import { DataResponse } from "../Domain/Pagination.js"
import { StatsQuery } from "../Domain/Queries.js"
import { Stats } from "../Domain/Stats.js"

export class StatsApi extends authenticated(
  HttpApiGroup.make("stats").add(
    siteRead(HttpApiEndpoint.get("getStats", "/sites/:id/stats"))
      .setUrlParams(StatsQuery)
      .addSuccess(DataResponse(Stats))
      .annotate(
        AgentTool,
        readTool({
          name: "get_stats",
          title: "Count a website's work for a period",
          description:
            "Counts a website's published articles and acquired backlinks (industry and local) in a period, or between from and to. Pass months (1-24) for the month-by-month counts of the months ending with the range's last month, as the website's charts show them.",
          pathArgs: { id: "site_id" },
          card: "stats"
        })
      )
      .annotateContext(
        endpointDescribed(
          "Read a website's counts for a period",
          "Counts of articles published and backlinks acquired (by category) in a period. `from` and `to` go together and take precedence over `period`; with neither, the period is `this_month`. The response's `from`/`to` are the resolved inclusive UTC days. With `months` (1 to 24), the response also has `months`: the counts of each of that many UTC calendar months ending with the month of `to`, oldest first, counted by the same rules; without it there is no `months` key. An unknown period, an impossible date, only one of from/to, from after to, or a `months` that is not an integer from 1 to 24: 422 validation_error."
        )
      )
  )
).annotateContext(groupDescribed("Stats", "Counts of articles published and backlinks acquired over a period.")) {}
