import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { BacklinkStatus } from "../Domain/Backlink.js"
import { type AccountId, BacklinkId, SiteId } from "../Domain/Ids.js"
import { CheckOutcome, LinkRel, LostReason } from "../Domain/LinkCheck.js"
import type { StoredCheck, StoredHealth } from "../Domain/LinkHealth.js"

/** A backlink due for a check, with what the check needs to know. */
export const DueBacklink = Schema.Struct({
  id: BacklinkId,
  site_id: SiteId,
  source_url: Schema.String,
  target_url: Schema.String,
  status: Schema.NullOr(BacklinkStatus),
  lost_reason: Schema.NullOr(LostReason),
  indexable: Schema.NullOr(Schema.Boolean),
  rel: Schema.Array(LinkRel),
  /** The stored body of the article held here whose address is the source, if there is one. */
  article_body: Schema.NullOr(Schema.String),
  /** The validators the host gave at the last check with an answer (sent back for a conditional request). */
  etag: Schema.NullOr(Schema.String),
  last_modified: Schema.NullOr(Schema.String),
  /** What the last check with a page to read saw: a 304 to a conditional request means the page is as then. */
  last_read: Schema.NullOr(
    Schema.Struct({
      outcome: CheckOutcome,
      rel: Schema.Array(LinkRel),
      anchor_text: Schema.NullOr(Schema.String),
      indexable: Schema.NullOr(Schema.Boolean)
    })
  )
})
export type DueBacklink = typeof DueBacklink.Type

const PastCheck = Schema.Struct({ at: Schema.Number, outcome: CheckOutcome })
const decodeDue = Schema.decodeUnknown(Schema.Array(DueBacklink))
const decodePast = Schema.decodeUnknown(Schema.Array(PastCheck))
const decodeOwned = Schema.decodeUnknown(
  Schema.Array(
    Schema.Struct({
      id: BacklinkId,
      status: Schema.NullOr(BacklinkStatus),
      anchor_text: Schema.NullOr(Schema.String),
      acquired: Schema.NullOr(Schema.Number)
    })
  )
)
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: BacklinkId, host: Schema.String })))

/** How many earlier checks the verdict reads: enough for the confirmation rules (three failures since found). */
const HISTORY = 10

const instant = (ms: number) => new Date(ms)

export class LinkChecksRepo extends Effect.Service<LinkChecksRepo>()("LinkChecks/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const dueColumns = sql`b.id, b.site_id, b.source_url, b.target_url, b.status, b.lost_reason, b.indexable, b.rel,
      b.etag, b.last_modified,
      (select a.body from articles a where a.url = b.source_url order by a.id limit 1) as article_body,
      (select jsonb_build_object('outcome', c.outcome, 'rel', to_jsonb(c.rel), 'anchor_text', c.anchor_text,
          'indexable', c.indexable)
        from backlink_checks c
        where c.backlink_id = b.id and c.fetched and (c.not_modified or c.http_status between 200 and 299)
        order by c.checked_at desc, c.id desc limit 1) as last_read`

    /** The next backlink of `host` due at `now`, soonest first (backlinks_host_due_idx). */
    const nextDue = (host: string, now: number) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select ${dueColumns} from backlinks b
          where b.source_host = ${host} and b.next_check_at <= ${instant(now)} and b.target_url is not null
          order by b.next_check_at limit 1`
        return (yield* decodeDue(rows))[0]
      }).pipe(Effect.orDie)

    /** Backlinks by id, to check now (`cbs backlinks check`), whatever their schedule; those without an address left out. */
    const byIds = (ids: ReadonlyArray<BacklinkId>) =>
      Effect.gen(function* () {
        if (ids.length === 0) return []
        const rows = yield* sql`
          select ${dueColumns} from backlinks b
          where b.id in ${sql.in(ids)} and b.source_host is not null and b.target_url is not null
          order by b.id`
        return yield* decodeDue(rows)
      }).pipe(Effect.orDie)

    /** The backlinks `cbs backlinks check` takes: one, a website's, or every one due at `now`; with their hosts. */
    const chosen = (choice: { readonly site?: SiteId; readonly backlink?: BacklinkId; readonly dueAt?: number }) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select id, source_host as host from backlinks
          where ${sql.and([
            sql`source_host is not null and target_url is not null`,
            ...(choice.site === undefined ? [] : [sql`site_id = ${choice.site}`]),
            ...(choice.backlink === undefined ? [] : [sql`id = ${choice.backlink}`]),
            ...(choice.dueAt === undefined ? [] : [sql`next_check_at <= ${instant(choice.dueAt)}`])
          ])}
          order by id`
        return yield* decodeIds(rows)
      }).pipe(Effect.orDie)

    /** The backlink's checks before `at`, newest first, as the verdict reads them. */
    const history = (id: BacklinkId, at: number) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select (extract(epoch from checked_at) * 1000)::float8 as at, outcome from backlink_checks
          where backlink_id = ${id} and checked_at < ${instant(at)}
          order by checked_at desc, id desc limit ${HISTORY}`
        return yield* decodePast(rows)
      }).pipe(Effect.orDie)

    /** Stores a check and the backlink's health after it (in the caller's transaction). */
    const record = (check: StoredCheck, health: StoredHealth) =>
      Effect.gen(function* () {
        yield* sql`
          insert into backlink_checks (backlink_id, checked_at, outcome, fetched, http_status, final_url, not_modified,
            rel, anchor_text, indexable, duration_ms, error)
          values (${check.backlink}, ${instant(check.at)}, ${check.outcome}, ${check.fetched}, ${check.http_status},
            ${check.final_url}, ${check.not_modified}, ${check.rel}::text[], ${check.anchor_text}, ${check.indexable},
            ${check.duration_ms}, ${check.error})`
        const validators = health.validators
        yield* sql`
          update backlinks set status = ${health.status}, lost_reason = ${health.lost_reason},
            indexable = ${health.indexable},
            rel = ${health.rel === null ? sql`rel` : sql`${health.rel}::text[]`},
            last_checked_at = ${instant(check.at)}, next_check_at = ${health.next_check_at === null ? null : instant(health.next_check_at)},
            etag = ${validators === undefined ? sql`etag` : validators.etag},
            last_modified = ${validators === undefined ? sql`last_modified` : validators.last_modified}
          where id = ${check.backlink}`
      }).pipe(Effect.orDie)

    /**
     * The hosts with checks due at `now` that no instance is checking (the minute sweep), leaving out `scheduled` (the
     * hosts whose round's next step is queued), at most `limit`; backlinks with nothing to check (no source or target
     * address) leave the schedule on the way.
     */
    const idleDueHosts = (now: number, limit: number, scheduled: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* sql`
          update backlinks set next_check_at = null
          where next_check_at <= ${instant(now)} and (source_host is null or target_url is null)`
        const rows = yield* sql<{ readonly host: string }>`
          with due as (
            select distinct source_host as host from backlinks
            where next_check_at <= ${instant(now)} and source_host is not null
          )
          select due.host from due left join link_check_hosts h on h.host = due.host
          where (h.host is null or ((h.busy_until is null or h.busy_until < now()) and h.next_request_at <= now()))
            and not due.host = any(${scheduled}::text[])
          order by due.host limit ${limit}`
        return rows.map((row) => row.host)
      }).pipe(Effect.orDie)

    /**
     * Takes `host` for `token` for `leaseMs` (the longest a check can take, with room), unless another holds it: when
     * taken, how long to wait before the host's next request may be made (0 when it may be made now).
     */
    const claimHost = (host: string, token: string, leaseMs: number) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ readonly wait_ms: number }>`
          insert into link_check_hosts as h (host, busy_until, busy_token)
          values (${host}, now() + ${leaseMs} * interval '1 ms', ${token})
          on conflict (host) do update set busy_until = excluded.busy_until, busy_token = excluded.busy_token
          where h.busy_until is null or h.busy_until < now()
          returning greatest(0, extract(epoch from (h.next_request_at - now())) * 1000)::float8 as wait_ms`
        return rows[0]?.wait_ms
      }).pipe(Effect.orDie)

    /** Gives `host` back; its next request no sooner than `pauseMs` from now. */
    const releaseHost = (host: string, token: string, pauseMs: number) =>
      sql`
        update link_check_hosts set busy_until = null, busy_token = null,
          next_request_at = greatest(next_request_at, now() + ${pauseMs} * interval '1 ms')
        where host = ${host} and busy_token = ${token}`.pipe(Effect.asVoid, Effect.orDie)

    /** Checks older than `days` days before `now` leave (the hourly upkeep); how many did. */
    const prune = (now: number, days: number) =>
      sql<{ readonly n: number }>`with d as (
          delete from backlink_checks where checked_at < ${instant(now)}::timestamptz - make_interval(days => ${days}) returning 1
        ) select count(*)::int as n from d`.pipe(
        Effect.map(([row]) => row?.n ?? 0),
        Effect.orDie
      )

    /** An account's backlinks, oldest acquired first, as a check history is made up for them (the demo's). */
    const ofAccount = (accountId: AccountId) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          select b.id, b.status, b.anchor_text, (extract(epoch from b.acquired_at) * 1000)::float8 as acquired
          from backlinks b join sites s on s.id = b.site_id
          where s.account_id = ${accountId} order by b.acquired_at, b.id`
        return yield* decodeOwned(rows)
      }).pipe(Effect.orDie)

    /** Leaves backlinks off the schedule: they are never checked in the background. */
    const unschedule = (ids: ReadonlyArray<BacklinkId>) =>
      ids.length === 0
        ? Effect.void
        : sql`update backlinks set next_check_at = null where id in ${sql.in(ids)}`.pipe(Effect.asVoid, Effect.orDie)

    return {
      nextDue,
      byIds,
      chosen,
      history,
      record,
      idleDueHosts,
      claimHost,
      releaseHost,
      prune,
      ofAccount,
      unschedule
    }
  })
}) {}
