import { Schema } from "effect"
import { CalendarDate } from "./Dates.js"
import { SiteId } from "./Ids.js"

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

export class Stats extends Schema.Class<Stats>("Stats")(
  {
    site_id: SiteId.annotations({ description: "Website id." }),
    from: CalendarDate.annotations({ description: "First day of the resolved range (UTC, inclusive)." }),
    to: CalendarDate.annotations({ description: "Last day of the resolved range (UTC, inclusive)." }),
    articles_published: Count.annotations({ description: "Articles whose published_at falls in the range." }),
    backlinks_acquired: Count.annotations({
      description: "Backlinks whose acquired_at falls in the range; backlinks_industry + backlinks_local."
    }),
    backlinks_industry: Count.annotations({ description: "Industry backlinks acquired in the range." }),
    backlinks_local: Count.annotations({ description: "Local backlinks acquired in the range." })
  },
  { description: "Article and backlink counts for a period." }
) {}
