import { Clock, Effect, Either } from "effect"
import type { Credential } from "../Domain/Credential.js"
import { toCalendarDate } from "../Domain/Dates.js"
import { ValidationError } from "../Domain/Errors.js"
import type { SiteId } from "../Domain/Ids.js"
import { lastMonths, resolvePeriod } from "../Domain/Period.js"
import type { StatsQuery } from "../Domain/Queries.js"
import { type MonthStats, Stats as StatsData } from "../Domain/Stats.js"
import { Sites } from "../Sites/Sites.js"
import { StatsRepo } from "./Repo.js"

/** The counts of a month the database has nothing for. */
const NOTHING = {
  articles_published: 0,
  backlinks_industry: 0,
  backlinks_local: 0,
  backlinks_live: 0,
  backlinks_lost: 0
}

export class Stats extends Effect.Service<Stats>()("Stats/Stats", {
  dependencies: [StatsRepo.Default, Sites.Default],
  effect: Effect.gen(function* () {
    const repo = yield* StatsRepo
    const sites = yield* Sites

    /**
     * The website's counts for each of the `count` UTC months that end with the month of `day`, oldest first, by the
     * same rules as a period's counts (a month with nothing in it is all zeros).
     */
    const monthsEndingWith = (siteId: SiteId, day: string, count: number) =>
      Effect.gen(function* () {
        const { months, range } = lastMonths(day, count)
        const found = new Map((yield* repo.byMonth(siteId, range)).map((row) => [row.month, row]))
        return months.map((month): MonthStats => {
          const counts = found.get(month) ?? NOTHING
          return { month, ...counts, backlinks_acquired: counts.backlinks_industry + counts.backlinks_local }
        })
      })

    /** The counts of the query's range; with `months`, also those of that many months ending with the range's. */
    const get = Effect.fn("Stats.get")(function* (credential: Credential, siteId: SiteId, query: StatsQuery) {
      yield* sites.requireReadable(credential, siteId)
      const now = new Date(yield* Clock.currentTimeMillis)
      const range = resolvePeriod(query, now)
      if (Either.isLeft(range)) return yield* new ValidationError({ message: range.left })
      const counts = yield* repo.counts(siteId, range.right)
      return new StatsData({
        site_id: siteId,
        ...range.right,
        ...counts,
        backlinks_acquired: counts.backlinks_industry + counts.backlinks_local,
        // Without `months` the answer has no `months` key at all, as before the series existed.
        ...(query.months === undefined ? {} : { months: yield* monthsEndingWith(siteId, range.right.to, query.months) })
      })
    })

    /** The website's counts for each of the `count` UTC months that end with the current one (the site page's charts). */
    const monthly = Effect.fn("Stats.monthly")(function* (credential: Credential, siteId: SiteId, count: number) {
      yield* sites.requireReadable(credential, siteId)
      return yield* monthsEndingWith(siteId, toCalendarDate(new Date(yield* Clock.currentTimeMillis)), count)
    })

    return { get, monthly }
  })
}) {}
