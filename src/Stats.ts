import { Clock, Effect, Either } from "effect"
import type { Credential } from "./Domain/Credential.js"
import { ValidationError } from "./Domain/Errors.js"
import type { SiteId } from "./Domain/Ids.js"
import { resolvePeriod } from "./Domain/Period.js"
import { Stats as StatsData } from "./Domain/Stats.js"
import { Sites } from "./Sites.js"
import type { StatsQuery } from "./Stats/Api.js"
import { StatsRepo } from "./Stats/Repo.js"

export class Stats extends Effect.Service<Stats>()("Stats", {
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

    return { get }
  })
}) {}
