import { ParseResult, Schema } from "effect"
import { ArticleStatus } from "./Article.js"
import { BacklinkStatus } from "./Backlink.js"
import { CalendarDate, DateRangeQuery } from "./Dates.js"
import { describedEventId, EVENT_DAYS, EventId, EventType, eventTypes } from "./Event.js"
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

export const BacklinksQuery = Schema.Struct({
  ...DateRangeQuery,
  status: Schema.optional(
    BacklinkStatus.annotations({ description: "Only backlinks with this status: pending, live or lost." })
  ),
  ...PageQuery
})
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

/** The most a site id can be (ids are bigint; see Ids.ts), as the events' `site_id` filter takes it. */
const MAX_SITE_ID = 999_999_999_999_999

const TYPES_DESCRIPTION = `Only events of these types, comma-separated: ${eventTypes.join(", ")}.`

const typesMessage = (problem: string) => `${problem}; the types are ${eventTypes.join(", ")}`

/**
 * `types` of the event feed: event type names separated by commas (white space around a name is ignored), at least
 * one; an unknown name is refused with the list of the known ones.
 */
const EventTypes = Schema.transformOrFail(Schema.String, Schema.Array(EventType), {
  strict: true,
  decode: (text, _, ast) => {
    const names = text
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
    const unknown = names.find((name) => !(eventTypes as ReadonlyArray<string>).includes(name))
    if (names.length === 0) return ParseResult.fail(new ParseResult.Type(ast, text, typesMessage("name at least one")))
    if (unknown !== undefined) {
      return ParseResult.fail(
        new ParseResult.Type(ast, text, typesMessage(`unknown event type ${JSON.stringify(unknown.slice(0, 40))}`))
      )
    }
    return ParseResult.succeed([...new Set(names)] as ReadonlyArray<EventType>)
  },
  encode: (types) => ParseResult.succeed(types.join(","))
}).annotations({
  description: TYPES_DESCRIPTION,
  jsonSchema: {
    type: "string",
    description: TYPES_DESCRIPTION,
    examples: ["article.changed,article.published"]
  }
})

export const EventsQuery = Schema.Struct({
  after: Schema.optional(
    EventId.annotations(
      describedEventId(
        `Only events after this one: the next_after of the last answer (an event of this account from the last ${EVENT_DAYS} days). Without it, the feed starts at the oldest event kept.`
      )
    )
  ),
  types: Schema.optional(EventTypes),
  site_id: Schema.optional(
    fromQuery(WholeNumber(1, MAX_SITE_ID).pipe(Schema.brand("SiteId")), {
      minimum: 1,
      maximum: MAX_SITE_ID,
      description: "Only the events of this website."
    })
  ),
  per_page: PageQuery.per_page
})
export type EventsQuery = typeof EventsQuery.Type
