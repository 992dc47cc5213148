import { Effect } from "effect"
import { LinkChecksRepo } from "./Repo.js"

/**
 * Checks made elsewhere, stored as the checker stores its own: the demo's made-up history (Demo/LinkHistory.ts), for
 * backlinks that are then left off the schedule.
 */
export class PastChecks extends Effect.Service<PastChecks>()("LinkChecks/PastChecks", {
  dependencies: [LinkChecksRepo.Default],
  effect: Effect.map(LinkChecksRepo, (repo) => ({
    backlinksOf: repo.ofAccount,
    store: repo.record,
    unschedule: repo.unschedule
  }))
}) {}
