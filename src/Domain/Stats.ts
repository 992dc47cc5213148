import { Schema } from "effect"
import { CalendarDate } from "./Dates.js"
import { SiteId } from "./Ids.js"

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/** The counts of a span of days, `span` naming it in the descriptions ("the range", "the month"). */
const countsOf = (span: string) => ({
  articles_published: Count.annotations({ description: `Articles whose published_at falls in ${span}.` }),
  backlinks_acquired: Count.annotations({
    description: `Backlinks whose acquired_at falls in ${span}; backlinks_industry + backlinks_local.`
  }),
  backlinks_industry: Count.annotations({ description: `Industry backlinks acquired in ${span}.` }),
  backlinks_local: Count.annotations({ description: `Local backlinks acquired in ${span}.` })
})

/** One UTC calendar month's counts, by the same rules as a period's. */
export const MonthStats = Schema.Struct({
  month: Schema.String.annotations({ description: "The UTC calendar month, YYYY-MM." }),
  ...countsOf("the month"),
  backlinks_live: Count.annotations({
    description: "Of the backlinks acquired in the month, those live now (as the service's link checks last saw them)."
  }),
  backlinks_lost: Count.annotations({ description: "Of the backlinks acquired in the month, those lost now." })
}).annotations({ identifier: "MonthStats", description: "Article and backlink counts for one UTC calendar month." })
export type MonthStats = typeof MonthStats.Type

export class Stats extends Schema.Class<Stats>("Stats")(
  {
    site_id: SiteId.annotations({ description: "Website id." }),
    from: CalendarDate.annotations({ description: "First day of the resolved range (UTC, inclusive)." }),
    to: CalendarDate.annotations({ description: "Last day of the resolved range (UTC, inclusive)." }),
    ...countsOf("the range"),
    backlinks_live: Count.annotations({
      description:
        "The website's backlinks that are live now, whenever acquired (not bounded by the range): found on their page at the last check."
    }),
    backlinks_lost: Count.annotations({
      description: "The website's backlinks that are lost now, whenever acquired (not bounded by the range)."
    }),
    months: Schema.optional(
      Schema.Array(MonthStats).annotations({
        description:
          "Present only when the query asks for months: the counts of that many UTC calendar months ending with the month of to (whole months, oldest first; a month with nothing in it is all zeros)."
      })
    )
  },
  { description: "Article and backlink counts for a period." }
) {}
