import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AccountId } from "../Domain/Ids.js"
import type { LostReason } from "../Domain/LinkCheck.js"
import type { StoredCheck } from "../Domain/LinkHealth.js"
import { PastChecks } from "../LinkChecks/PastChecks.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The reasons the demo's lost backlinks were lost, in turn. */
const reasons: ReadonlyArray<LostReason> = ["link_removed", "page_not_found", "redirected_away"]

/**
 * The demo's link checks. Its backlinks' pages are on `.example` addresses, which cannot be fetched: checking them
 * would only ever find them unreachable. So the demo holds a check history made up like the rest of its data
 * (each live backlink found a few days ago, some nofollow or on a noindex page; each lost one found once, then lost
 * for one of the reasons in turn; the pending ones not checked yet), stored the way real checks are, and its
 * backlinks are left off the schedule.
 */
export const seedLinkHistory = (accountId: AccountId, today: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const past = yield* PastChecks
    yield* Effect.gen(function* () {
      const backlinks = yield* past.backlinksOf(accountId)
      for (const [index, backlink] of backlinks.entries()) {
        const acquired = backlink.acquired ?? today - 30 * DAY
        const check = (at: number, seen: Partial<StoredCheck>): StoredCheck => ({
          backlink: backlink.id,
          at,
          outcome: "found",
          fetched: true,
          http_status: 200,
          final_url: null,
          not_modified: false,
          rel: [],
          anchor_text: backlink.anchor_text,
          indexable: true,
          duration_ms: 180 + ((index * 97) % 600),
          error: null,
          ...seen
        })
        const unscheduled = { rel: null, next_check_at: null, validators: undefined }
        if (backlink.status === "live") {
          const rel = index % 5 === 0 ? (["nofollow"] as const) : []
          const indexable = index % 9 !== 4
          const found = check(today - ((index % 6) + 1) * DAY - ((index * 37) % 12) * HOUR, { rel, indexable })
          yield* past.store(found, { ...unscheduled, status: "live", lost_reason: null, indexable, rel })
        } else if (backlink.status === "lost") {
          const reason = reasons[index % reasons.length]!
          const lostAt = Math.min(today - 2 * DAY, acquired + 20 * DAY)
          yield* past.store(check(acquired + DAY, {}), {
            ...unscheduled,
            status: "live",
            lost_reason: null,
            indexable: true
          })
          const failed = (at: number) =>
            check(at, {
              outcome: reason,
              http_status: reason === "page_not_found" ? 404 : 200,
              final_url: reason === "redirected_away" ? "https://www.example.com/" : null,
              anchor_text: null,
              indexable: null
            })
          if (reason === "page_not_found") {
            yield* past.store(failed(lostAt - HOUR), {
              ...unscheduled,
              status: "live",
              lost_reason: null,
              indexable: true
            })
          }
          yield* past.store(failed(lostAt), { ...unscheduled, status: "lost", lost_reason: reason, indexable: null })
        }
      }
      yield* past.unschedule(backlinks.map((backlink) => backlink.id))
    }).pipe(sql.withTransaction, Effect.orDie)
  })
