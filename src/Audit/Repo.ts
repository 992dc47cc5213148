import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AuditEntry } from "../Domain/CallLog.js"
import { RevisionOrigin } from "../Domain/Credential.js"
import { rfc3339 } from "../SqlFormats.js"

/**
 * One line of an article's story: a call (API or MCP, with its status) or a change made outside the API (in the
 * editor, or by a rewrite or import, with its revision and reason), with who made it.
 */
export class ActivityRow extends Schema.Class<ActivityRow>("ActivityRow")({
  at: Schema.String,
  kind: Schema.Literal("call", "change"),
  origin: RevisionOrigin,
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  tool: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.Number),
  revision: Schema.NullOr(Schema.Number),
  reason: Schema.NullOr(Schema.String),
  user_email: Schema.NullOr(Schema.String),
  key_name: Schema.NullOr(Schema.String),
  key_prefix: Schema.NullOr(Schema.String)
}) {}

/** A line of the account's story: an activity row and the article it concerns, when it concerns one. */
export class AccountActivityRow extends Schema.Class<AccountActivityRow>("AccountActivityRow")({
  ...ActivityRow.fields,
  article_id: Schema.NullOr(Schema.Number),
  /** Whether the article is the account's own (a call may name another account's article, and be refused). */
  own_article: Schema.Boolean,
  article_title: Schema.NullOr(Schema.String)
}) {}

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

    // Calls follow audit_log_article_at_idx, changes article_revisions_article_number_key; both are per article.
    // Only the calls of the article's own account: another account's refused attempt would name its key here.
    const activityOfArticle = (
      articleId: number,
      options: { readonly origin?: string | undefined; readonly limit: number; readonly offset: number }
    ) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: ActivityRow,
        execute: () => sql`
          select ${sql.unsafe(rfc3339("x.at"))} as at, x.kind, x.origin, x.method, x.path, x.tool, x.status,
            x.revision, x.reason, u.email as user_email, k.name as key_name, k.prefix as key_prefix
          from (
            select a.at, 'call' as kind, a.origin, a.method, a.path, a.tool, a.status,
              null::integer as revision, null::text as reason, a.user_id, a.api_key_id, a.id as seq
            from audit_log a
            where a.article_id = ${articleId}
              and a.account_id = (select s.account_id from articles ar join sites s on s.id = ar.site_id
                where ar.id = ${articleId})
            union all
            select r.created_at, 'change', r.origin, null, null, null, null, r.number, r.reason,
              r.user_id, r.api_key_id, r.id
            from article_revisions r
            where r.article_id = ${articleId} and r.origin in ('editor', 'rewrite')
          ) x
          left join users u on u.id = x.user_id
          left join api_keys k on k.id = x.api_key_id
          where ${options.origin === undefined ? sql`true` : sql`x.origin = ${options.origin}`}
          order by x.at desc, x.seq desc
          limit ${options.limit} offset ${options.offset}`
      })(undefined).pipe(Effect.orDie)

    // Calls follow audit_log_account_at_idx; changes go from the account's sites (sites_account_id_idx) to their
    // articles (articles_site_published_idx) to their revisions (article_revisions_article_number_key). An article
    // is named only when it is the account's own.
    const activityOfAccount = (
      accountId: number,
      options: { readonly origin?: string | undefined; readonly limit: number; readonly offset: number }
    ) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: AccountActivityRow,
        execute: () => sql`
          with own as (
            select ar.id, ar.title from articles ar join sites s on s.id = ar.site_id where s.account_id = ${accountId}
          )
          select ${sql.unsafe(rfc3339("x.at"))} as at, x.kind, x.origin, x.method, x.path, x.tool, x.status,
            x.revision, x.reason, u.email as user_email, k.name as key_name, k.prefix as key_prefix,
            x.article_id, own.id is not null as own_article, own.title as article_title
          from (
            select a.at, 'call' as kind, a.origin, a.method, a.path, a.tool, a.status,
              null::integer as revision, null::text as reason, a.user_id, a.api_key_id, a.article_id, a.id as seq
            from audit_log a where a.account_id = ${accountId}
            union all
            select r.created_at, 'change', r.origin, null, null, null, null, r.number, r.reason,
              r.user_id, r.api_key_id, r.article_id, r.id
            from article_revisions r
            where r.article_id in (select id from own) and r.origin in ('editor', 'rewrite')
          ) x
          left join own on own.id = x.article_id
          left join users u on u.id = x.user_id
          left join api_keys k on k.id = x.api_key_id
          where ${options.origin === undefined ? sql`true` : sql`x.origin = ${options.origin}`}
          order by x.at desc, x.seq desc
          limit ${options.limit} offset ${options.offset}`
      })(undefined).pipe(Effect.orDie)

    const pruneBefore = (before: string) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Schema.Struct({ deleted: Schema.Number }),
        execute: () => sql`
          with gone as (delete from audit_log where at < ${before}::timestamptz returning 1)
          select count(*) as deleted from gone`
      })(undefined).pipe(
        Effect.map((row) => row.deleted),
        Effect.orDie
      )

    return { insert, insertAll, activityOfArticle, activityOfAccount, pruneBefore }
  })
}) {}
