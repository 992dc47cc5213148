import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment, Statement } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { AccountActivityRow, ActivityRow, SavingCall } from "../Domain/Activity.js"
import { AuditEntry } from "../Domain/CallLog.js"
import { rfc3339, withinUtcDays } from "../Sql/SqlFormats.js"

/** Inclusive UTC days (`YYYY-MM-DD`): the calls a read looks at. Every read of the log is bounded to days. */
export interface Days {
  readonly from: string
  readonly to: string
}

/** What an activity page asks for, within its days. */
export interface ActivityQuery {
  readonly days: Days
  readonly origin?: string | undefined
  readonly limit: number
  readonly offset: number
}

const DayCalls = Schema.Struct({ day: Schema.String, calls: Schema.Number })

/** The old table's rows, as the migration to day partitions left them (see migrations/0011_audit_log_by_day.sql). */
const UNPARTITIONED = "audit_log_unpartitioned"
const COLUMNS =
  "id, at, account_id, api_key_id, user_id, origin, method, path, tool, article_id, status, duration_ms, request_id"

export class AuditRepo extends Effect.Service<AuditRepo>()("Audit/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** An entry as the row the table takes. */
    const rowOf = (entry: AuditEntry) => ({ ...entry, at: sql`${entry.at}::timestamptz` })

    const insert = SqlSchema.void({
      Request: AuditEntry,
      execute: (entry) => sql`insert into audit_log ${sql.insert(rowOf(entry))}`
    })

    /** Writes a batch of entries in one statement, in their order. */
    const insertAll = (entries: ReadonlyArray<AuditEntry>) =>
      sql`insert into audit_log ${sql.insert(entries.map(rowOf))}`.pipe(Effect.asVoid)

    /** The origin filter of an activity page, on one branch of its union. */
    const originIs = (column: string, options: ActivityQuery) =>
      options.origin === undefined ? sql`true` : sql`${sql(column)} = ${options.origin}`

    // Each branch of an activity page takes its own newest `offset + limit` rows before they are merged, so that the
    // calls are read along the index of every day partition in order (a Merge Append that stops after the page)
    // rather than all of an account's calls sorted: the page costs the same at a hundred thousand calls as at ten
    // million. The page is the newest of those.

    /** The columns every activity row has, over the union `x` and the `saved`, `u` and `k` joins. */
    const activityColumns = sql`${sql.unsafe(rfc3339("x.at"))} as at, x.kind, x.note, x.origin, x.method, x.path,
            x.tool, x.status, x.error, x.message, x.revision, coalesce(x.reason, saved.reason) as reason, u.email as user_email,
            k.name as key_name, k.prefix as key_prefix`

    // The union `x` of an activity page: the newest calls that `calls` picks (of `audit_log a`, within the page's
    // days) and the newest editor and rewrite changes that `changes` picks (of `article_revisions r`), each branch
    // filtered by the page's origin.
    const callsAndChanges = (calls: Fragment, changes: Fragment, options: ActivityQuery) => sql`(
            (select a.at, 'call' as kind, a.note, a.origin, a.method, a.path, a.tool, a.status, a.error, a.message,
              a.revision, null::text as reason, a.user_id, a.api_key_id, a.article_id, a.id as seq
            from audit_log a
            where ${calls} and ${sql.and(withinUtcDays(sql, "a.at", options.days))}
              and ${originIs("a.origin", options)}
            order by a.at desc, a.id desc
            limit ${options.offset + options.limit})
            union all
            (select r.created_at, 'change', null, r.origin, null, null, null, null, null, null, r.number, r.reason,
              r.user_id, r.api_key_id, r.article_id, r.id
            from article_revisions r
            where ${changes} and r.origin in ('editor', 'rewrite') and ${originIs("r.origin", options)}
            order by r.created_at desc, r.id desc
            limit ${options.offset + options.limit})
          ) x`

    /** Who made each row (`u`, `k`), and the page of the union, newest first. */
    const byWhomPaged = (options: ActivityQuery) => sql`
          left join users u on u.id = x.user_id
          left join api_keys k on k.id = x.api_key_id
          order by x.at desc, x.seq desc
          limit ${options.limit} offset ${options.offset}`

    /** An activity page's rows, decoded as `Row`. */
    const activityRows = <A, I>(Row: Schema.Schema<A, I>, page: Statement<unknown>) =>
      SqlSchema.findAll({ Request: Schema.Void, Result: Row, execute: () => page })(undefined).pipe(Effect.orDie)

    // Calls follow audit_log_article_at_idx, changes article_revisions_article_number_key; both are per article.
    // Only the calls of the article's own account: another account's refused attempt would name its key here. The
    // account is compared with `is not distinct from`, which no index serves, so that it filters the rows the
    // article's index gives rather than offer the account's index instead: without statistics (a new day's partition)
    // the planner could otherwise take the account's, and read all of its calls for one article's. The article's
    // account is never null, so it keeps exactly the rows `=` would.
    const articleActivity = (articleId: number, options: ActivityQuery) => sql`
          select ${activityColumns}
          from ${callsAndChanges(
            sql`a.article_id = ${articleId}
              and a.account_id is not distinct from (select s.account_id from articles ar join sites s on s.id = ar.site_id
                where ar.id = ${articleId})`,
            sql`r.article_id = ${articleId}`,
            options
          )}
          -- A call that saved a change shows the change's reason (its revision row, by article and number).
          left join article_revisions saved
            on x.kind = 'call' and saved.article_id = x.article_id and saved.number = x.revision
          ${byWhomPaged(options)}`

    const activityOfArticle = (articleId: number, options: ActivityQuery) =>
      activityRows(ActivityRow, articleActivity(articleId, options))

    // Calls follow audit_log_account_at_idx; changes go from the account's sites (sites_account_id_idx) to their
    // articles (articles_site_published_idx) to their revisions (article_revisions_article_number_key). An article
    // is named only when it is the account's own.
    const accountActivity = (accountId: number, options: ActivityQuery) => sql`
          with own as (
            select ar.id, ar.title from articles ar join sites s on s.id = ar.site_id where s.account_id = ${accountId}
          )
          select ${activityColumns}, x.article_id, own.id is not null as own_article, own.title as article_title
          from ${callsAndChanges(sql`a.account_id = ${accountId}`, sql`r.article_id in (select id from own)`, options)}
          left join own on own.id = x.article_id
          -- Only the account's own article's revision: a call may name another account's article.
          left join article_revisions saved
            on x.kind = 'call' and own.id is not null and saved.article_id = x.article_id and saved.number = x.revision
          ${byWhomPaged(options)}`

    // The call's row was written in the change's transaction. Read along audit_log_article_at_idx, within the days
    // kept (as every read of the log is).
    const callThatSaved = (articleId: number, revision: number, days: Days) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: SavingCall,
        execute: () => sql`
          select ${sql.unsafe(rfc3339("a.at"))} as at, a.origin, a.method, a.path, a.tool, a.request_id
          from audit_log a
          where a.article_id = ${articleId} and a.revision = ${revision} and ${sql.and(withinUtcDays(sql, "a.at", days))}
          order by a.at desc
          limit 1`
      })(undefined).pipe(Effect.orDie)

    const activityOfAccount = (accountId: number, options: ActivityQuery) =>
      activityRows(AccountActivityRow, accountActivity(accountId, options))

    /** PostgreSQL's plan for a statement, as JSON (`EXPLAIN (FORMAT JSON)`), run with the statement's own values. */
    const explain = (statement: Statement<unknown>) =>
      Effect.suspend(() => {
        const [text, params] = statement.compile()
        return sql.unsafe<{ "QUERY PLAN": unknown }>(`explain (format json) ${text}`, params)
      }).pipe(
        Effect.map((rows) => rows[0]!["QUERY PLAN"]),
        Effect.orDie
      )

    /** Adds the day's partition unless it exists (moving the day's rows out of the default partition); how many moved. */
    const addDay = (day: string) =>
      sql<{ moved: number }>`select audit_log_add_day(${day}::date) as moved`.pipe(
        Effect.map((rows) => rows[0]!.moved),
        Effect.orDie
      )

    /** Detaches and drops the day partitions before `firstKept`; their days. */
    const dropDaysBefore = (firstKept: string) =>
      sql<{ day: string }>`
        select to_char(d, 'YYYY-MM-DD') as day from audit_log_drop_days_before(${firstKept}::date) d`.pipe(
        Effect.map((rows) => rows.map((row) => row.day)),
        Effect.orDie
      )

    /**
     * Deletes the calls before the day `firstKept` that are still there once its earlier day partitions are gone:
     * rows of the default partition (the plan reads nothing else). How many.
     */
    const deleteBefore = (firstKept: string) =>
      sql<{ deleted: number }>`
        with gone as (
          delete from audit_log a where a.at < ${firstKept}::date::timestamp at time zone 'UTC'
          returning 1
        )
        select count(*)::int as deleted from gone`.pipe(
        Effect.map((rows) => rows[0]!.deleted),
        Effect.orDie
      )

    /** The UTC days of the rows in the default partition, with how many each. */
    const defaultDays = SqlSchema.findAll({
      Request: Schema.Void,
      Result: DayCalls,
      execute: () => sql`
        select to_char((at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, count(*)::int as calls
        from audit_log_default group by 1 order by 1`
    })(undefined).pipe(Effect.orDie)

    /** The days that have a partition, in order. */
    const days = sql<{ day: string }>`
      select to_char(to_date(substr(c.relname, 11), 'YYYYMMDD'), 'YYYY-MM-DD') as day
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'audit_log'::regclass and c.relname ~ '^audit_log_[0-9]{8}$'
      order by 1`.pipe(
      Effect.map((rows) => rows.map((row) => row.day)),
      Effect.orDie
    )

    /** Whether the table from before day partitions still holds rows to move (it is dropped once empty). */
    const unpartitionedPresent = sql<{ present: boolean }>`
      select to_regclass(${UNPARTITIONED}) is not null as present`.pipe(
      Effect.map((rows) => rows[0]!.present),
      Effect.orDie
    )

    /** The newest UTC day among the old table's rows, or null when it is empty (along its index on `at`). */
    const unpartitionedNewestDay = sql<{ day: string | null }>`
      select to_char((max(at) at time zone 'UTC')::date, 'YYYY-MM-DD') as day from ${sql(UNPARTITIONED)}`.pipe(
      Effect.map((rows) => rows[0]!.day),
      Effect.orDie
    )

    /**
     * Moves up to `limit` of the day's newest rows from the old table into the log, in one statement: a row is in
     * exactly one of the two tables at every moment. How many moved.
     */
    const moveUnpartitioned = (day: string, limit: number) =>
      sql<{ moved: number }>`
        with moved as (
          delete from ${sql(UNPARTITIONED)} where id in (
            select id from ${sql(UNPARTITIONED)} a where ${sql.and(withinUtcDays(sql, "a.at", { from: day, to: day }))}
            order by at desc limit ${limit}
          )
          returning ${sql.unsafe(COLUMNS)}
        ), inserted as (
          insert into audit_log (${sql.unsafe(COLUMNS)})
          select ${sql.unsafe(COLUMNS)} from moved
          returning 1
        )
        select count(*)::int as moved from inserted`.pipe(
        Effect.map((rows) => rows[0]!.moved),
        Effect.orDie
      )

    const dropUnpartitioned = sql`drop table if exists ${sql(UNPARTITIONED)}`.pipe(Effect.asVoid, Effect.orDie)

    return {
      insert,
      insertAll,
      activityOfArticle,
      activityOfAccount,
      callThatSaved,
      /** The plans of the activity pages' reads, for the tests that hold them to their days' partitions. */
      plans: {
        activityOfArticle: (articleId: number, options: ActivityQuery) => explain(articleActivity(articleId, options)),
        activityOfAccount: (accountId: number, options: ActivityQuery) => explain(accountActivity(accountId, options))
      },
      addDay,
      dropDaysBefore,
      deleteBefore,
      defaultDays,
      days,
      unpartitionedPresent,
      unpartitionedNewestDay,
      moveUnpartitioned,
      dropUnpartitioned
    }
  })
}) {}
