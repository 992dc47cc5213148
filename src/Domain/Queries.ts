import { Schema } from "effect"
import { ArticleStatus } from "./Article.js"
import { CalendarDate, DateRangeQuery } from "./Dates.js"
import { fromQuery, PageQuery, WholeNumber } from "./Pagination.js"
import { SearchText } from "./Search.js"
import { Text } from "./Text.js"

// The query parameters of the lists and counts, shared by their endpoints (and so their agent tools), the services
// that answer them, and the web pages that read the same parameters.

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

/** The filters of the articles list (shared by the endpoint and the agent tool). */
export const ArticlesFilterFields = {
  ...DateRangeQuery,
  status: Schema.optional(ArticleStatus.annotations({ description: "Only articles with this status." })),
  q: Schema.optional(SearchText)
}

export const ArticlesQuery = Schema.Struct({ ...ArticlesFilterFields, ...PageQuery })
export type ArticlesQuery = typeof ArticlesQuery.Type

export const BacklinksQuery = Schema.Struct({ ...DateRangeQuery, ...PageQuery })
export type BacklinksQuery = typeof BacklinksQuery.Type

export const RevisionsQuery = Schema.Struct(PageQuery)
export type RevisionsQuery = typeof RevisionsQuery.Type

/** The most months the stats' month-by-month series covers: two years. */
export const MAX_STATS_MONTHS = 24

/** `months` of the stats: one message for every way it can be wrong (not a number, a fraction, out of range, twice). */
const StatsMonths = fromQuery(WholeNumber(1, MAX_STATS_MONTHS), {
  minimum: 1,
  maximum: MAX_STATS_MONTHS,
  description: `Also answer months: the counts of each of this many UTC calendar months (1-${MAX_STATS_MONTHS}) ending with the range's last month.`
})

export const StatsQuery = Schema.Struct({
  period: Schema.optional(
    Text.annotations({
      description:
        "this_month (default), last_month, last_30_days, YYYY-MM or YYYY-MM-DD (UTC); from and to win over it.",
      examples: ["this_month", "last_month", "last_30_days", "2026-10", "2026-10-15"]
    })
  ),
  from: Schema.optional(CalendarDate.annotations({ description: "First day, YYYY-MM-DD (UTC, inclusive); needs to." })),
  to: Schema.optional(CalendarDate.annotations({ description: "Last day, YYYY-MM-DD (UTC, inclusive); needs from." })),
  months: Schema.optional(StatsMonths)
})
export type StatsQuery = typeof StatsQuery.Type
