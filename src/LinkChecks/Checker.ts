import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect } from "effect"
import { backlinkEventRows } from "../Backlinks/EventRows.js"
import type { BacklinkStatus } from "../Domain/Backlink.js"
import type { BacklinkId } from "../Domain/Ids.js"
import { type CheckOutcome, type LostReason, outcomeOf } from "../Domain/LinkCheck.js"
import type { StoredCheck, StoredHealth } from "../Domain/LinkHealth.js"
import { linkVerdict } from "../Domain/LinkVerdict.js"
import { Events } from "../Events/Events.js"
import { findLink } from "../Html/LinkFinder.js"
import { fetchPage } from "./PageFetcher.js"
import { type DueBacklink, LinkChecksRepo } from "./Repo.js"
import { LinkCheckSettings } from "./Settings.js"

/** How long checks are kept, in days. */
export const CHECK_DAYS = 90

/** At least this long between two requests to one host, across every instance (CONTRACT "Link health"). */
export const HOST_PAUSE_MS = 2_000

/**
 * What a check saw, before the verdict: the page's finding, or the article's (a check as stored, but with what the
 * page said of its indexing, and the validators the host gave).
 */
interface Seen extends Omit<StoredCheck, "backlink" | "at" | "indexable"> {
  readonly metaNoindex: boolean
  readonly headerNoindex: boolean
  readonly validators: StoredHealth["validators"]
}

/** A check's result, as `cbs backlinks check` prints it. */
export interface CheckResult {
  readonly backlink: BacklinkId
  readonly source_url: string
  readonly outcome: CheckOutcome
  readonly http_status: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly status: typeof BacklinkStatus.Type
  readonly lost_reason: LostReason | null
  readonly previous_status: typeof BacklinkStatus.Type | null
  readonly changed: boolean
}

/** The real clock: pacing is about the hosts' time, whatever clock the checks are dated by. */
const realSleep = (ms: number) => Effect.sleep(Duration.millis(ms)).pipe(Effect.withClock(Clock.make()))

export class Checker extends Effect.Service<Checker>()("LinkChecks/Checker", {
  dependencies: [LinkChecksRepo.Default, Events.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* LinkChecksRepo
    const events = yield* Events
    const eventRows = backlinkEventRows(sql)

    /** An article held here: its stored body is the page, no fetch. */
    const readArticle = (due: DueBacklink, body: string): Seen => {
      const started = performance.now()
      const finding = findLink(body, { pageUrl: due.source_url, targetUrl: due.target_url })
      return {
        outcome: finding.found ? "found" : "link_removed",
        fetched: false,
        http_status: null,
        final_url: null,
        not_modified: false,
        rel: finding.rel,
        anchor_text: finding.anchorText,
        metaNoindex: false,
        headerNoindex: false,
        duration_ms: Math.round(performance.now() - started),
        error: null,
        validators: undefined
      }
    }

    /** The source page, fetched under the outbound guard; a 304 is the page as the last check that read it saw it. */
    const readPage = (due: DueBacklink) =>
      Effect.gen(function* () {
        const settings = yield* LinkCheckSettings
        const last = due.last_read
        const page = yield* fetchPage(
          {
            sourceUrl: due.source_url,
            targetUrl: due.target_url,
            // Validators are sent only when there is a reading to fall back on for a 304.
            etag: last === null ? null : due.etag,
            lastModified: last === null ? null : due.last_modified,
            foundBefore: last?.outcome === "found",
            userAgent: settings.userAgent
          },
          settings.limits
          // Its time limit is the real one, whatever clock the checks are dated by.
        ).pipe(Effect.withClock(Clock.make()))
        const unchanged = page.notModified && last !== null
        const answered = page.fetch._tag === "Answered" && page.fetch.status >= 200 && page.fetch.status < 300
        return {
          outcome: unchanged ? last.outcome : outcomeOf(page.fetch),
          fetched: true,
          http_status: page.httpStatus,
          final_url: page.finalUrl,
          not_modified: page.notModified,
          rel: unchanged ? last.rel : page.rel,
          anchor_text: unchanged ? last.anchor_text : page.anchorText,
          metaNoindex: unchanged ? last.indexable === false : page.metaNoindex,
          headerNoindex: unchanged ? false : page.headerNoindex,
          duration_ms: Math.round(page.durationMs),
          error: page.error,
          validators: answered ? { etag: page.etag, last_modified: page.lastModified } : undefined
        } satisfies Seen
      })

    /**
     * Checks one backlink now: reads its page (or its article), judges it with its earlier checks, and stores the
     * check, its health and, when its status or lost reason changed, a backlink.status_changed event, together.
     */
    const check = Effect.fn("LinkChecks.check")(function* (due: DueBacklink) {
      const seen = due.article_body === null ? yield* readPage(due) : readArticle(due, due.article_body)
      const at = yield* Clock.currentTimeMillis
      const history = yield* repo.history(due.id, at)
      const current = { status: due.status ?? "pending", lost_reason: due.lost_reason, indexable: due.indexable }
      const verdict = linkVerdict(
        current,
        history,
        { at, outcome: seen.outcome, metaNoindex: seen.metaNoindex, headerNoindex: seen.headerNoindex },
        Math.random
      )
      const found = seen.outcome === "found"
      const stored: StoredCheck = {
        backlink: due.id,
        at,
        outcome: seen.outcome,
        fetched: seen.fetched,
        http_status: seen.http_status,
        final_url: seen.final_url,
        not_modified: seen.not_modified,
        rel: found ? seen.rel : [],
        anchor_text: found ? seen.anchor_text : null,
        indexable: found ? !(seen.metaNoindex || seen.headerNoindex) : null,
        duration_ms: seen.duration_ms,
        error: seen.error
      }
      yield* Effect.gen(function* () {
        yield* repo.record(stored, {
          status: verdict.status,
          lost_reason: verdict.lost_reason,
          indexable: verdict.indexable,
          rel: found ? seen.rel : null,
          next_check_at: verdict.next_check_at,
          validators: seen.validators
        })
        // Its event last, as every change's (the account's event lock is held only until the commit).
        if (verdict.changed) {
          yield* events.record(
            "backlink.status_changed",
            eventRows.statusChanged(due.id, { status: due.status, lost_reason: due.lost_reason })
          )
        }
      }).pipe(sql.withTransaction, Effect.orDie)
      if (verdict.changed) yield* events.wake
      return {
        backlink: due.id,
        source_url: due.source_url,
        outcome: seen.outcome,
        http_status: seen.http_status,
        error: seen.error,
        duration_ms: seen.duration_ms,
        status: verdict.status,
        lost_reason: verdict.lost_reason,
        previous_status: due.status,
        changed: verdict.changed
      } satisfies CheckResult
    })

    /**
     * Runs `use` holding `host` (one instance at a time per host, across every instance), once the host's last request
     * is at least HOST_PAUSE_MS old; `use` says whether it made a request. None when another instance holds the host.
     */
    const withHost = <A, E, R>(
      host: string,
      use: Effect.Effect<{ readonly value: A; readonly fetched: boolean }, E, R>
    ) =>
      Effect.gen(function* () {
        const token = randomUUID()
        const lease = (yield* LinkCheckSettings).limits.timeoutMs * 2 + 30_000
        const wait = yield* repo.claimHost(host, token, lease)
        if (wait === undefined) return undefined
        let fetched = true
        return yield* Effect.gen(function* () {
          if (wait > 0) yield* realSleep(wait)
          const outcome = yield* use
          fetched = outcome.fetched
          return outcome.value
        }).pipe(Effect.ensuring(Effect.suspend(() => repo.releaseHost(host, token, fetched ? HOST_PAUSE_MS : 0))))
      })

    /**
     * One step of a host's round (the link-check job): its next due backlink checked, under the host's pacing.
     * Whether one was checked (then the round goes on after the pause); undefined when another instance holds the host.
     */
    const stepHost = (host: string) =>
      withHost(
        host,
        Effect.gen(function* () {
          const due = yield* repo.nextDue(host, yield* Clock.currentTimeMillis)
          if (due === undefined) return { value: false, fetched: false }
          yield* check(due)
          return { value: true, fetched: due.article_body === null }
        })
      )

    /**
     * Checks the given backlinks now (`cbs backlinks check`), whatever their schedule, under the same per-host pacing:
     * hosts in parallel (a few at a time), each host's backlinks one after another, waiting for a host another
     * instance holds.
     */
    const checkNow = (chosen: ReadonlyArray<{ readonly id: BacklinkId; readonly host: string }>) =>
      Effect.gen(function* () {
        const byHost = new Map<string, Array<BacklinkId>>()
        for (const { id, host } of chosen) {
          const ids = byHost.get(host)
          if (ids === undefined) byHost.set(host, [id])
          else ids.push(id)
        }
        const one = (host: string, id: BacklinkId): Effect.Effect<ReadonlyArray<CheckResult>> =>
          withHost(
            host,
            Effect.gen(function* () {
              const [due] = yield* repo.byIds([id])
              if (due === undefined) return { value: [], fetched: false }
              return { value: [yield* check(due)], fetched: due.article_body === null }
            })
          ).pipe(
            Effect.flatMap((results) =>
              results === undefined ? realSleep(500).pipe(Effect.zipRight(one(host, id))) : Effect.succeed(results)
            )
          )
        const results = yield* Effect.forEach(byHost, ([host, ids]) => Effect.forEach(ids, (id) => one(host, id)), {
          concurrency: 8
        })
        return results.flat(2)
      })

    return { check, stepHost, checkNow, idleDueHosts: repo.idleDueHosts, chosen: repo.chosen, prune: repo.prune }
  })
}) {}
