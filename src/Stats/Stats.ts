import { Clock, Effect, Either } from "effect"
import type { Credential } from "../Domain/Credential.js"
import { ValidationError } from "../Domain/Errors.js"
import type { SiteId } from "../Domain/Ids.js"
import { lastMonths, resolvePeriod } from "../Domain/Period.js"
import type { StatsQuery } from "../Domain/Queries.js"
import { Stats as StatsData } from "../Domain/Stats.js"
import { Sites } from "../Sites/Sites.js"
import { type MonthCounts, StatsRepo } from "./Repo.js"

export class Stats extends Effect.Service<Stats>()("Stats/Stats", {
  dependencies: [StatsRepo.Default, Sites.Default],
  effect: Effect.gen(function* () {
    const repo = yield* StatsRepo
    const sites = yield* Sites

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
        backlinks_acquired: counts.backlinks_industry + counts.backlinks_local
      })
    })

    /**
     * The website's counts for each of the `count` UTC months that end with the current one, oldest first, by the
     * same rules as `get` (a month with nothing in it is all zeros).
     */
    const monthly = Effect.fn("Stats.monthly")(function* (credential: Credential, siteId: SiteId, count: number) {
      yield* sites.requireReadable(credential, siteId)
      const { months, range } = lastMonths(new Date(yield* Clock.currentTimeMillis), count)
      const found = new Map((yield* repo.byMonth(siteId, range)).map((row) => [row.month, row]))
      return months.map(
        (month): MonthCounts =>
          found.get(month) ?? { month, articles_published: 0, backlinks_industry: 0, backlinks_local: 0 }
      )
    })

    return { get, monthly }
  })
}) {}
