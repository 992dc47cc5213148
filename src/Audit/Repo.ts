import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { rfc3339 } from "../SqlFormats.js"
import { RevisionOrigin } from "./RevisionsRepo.js"

export const AuditEntry = Schema.Struct({
  at: Schema.String,
  account_id: Schema.NullOr(Schema.Number),
  api_key_id: Schema.NullOr(Schema.Number),
  user_id: Schema.NullOr(Schema.Number),
  origin: RevisionOrigin,
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  tool: Schema.NullOr(Schema.String),
  article_id: Schema.NullOr(Schema.Number),
  status: Schema.Number,
  duration_ms: Schema.Number,
  request_id: Schema.NullOr(Schema.String)
})
export type AuditEntry = typeof AuditEntry.Type

export class AuditRow extends Schema.Class<AuditRow>("AuditRow")({
  id: Schema.Number,
  ...AuditEntry.fields
}) {}

export class AuditRepo extends Effect.Service<AuditRepo>()("Audit/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: AuditEntry,
      execute: (entry) => sql`insert into audit_log ${sql.insert({ ...entry, at: sql`${entry.at}::timestamptz` })}`
    })

    // Follows audit_log_article_at_idx.
    const listForArticle = (articleId: number, limit: number, offset: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: AuditRow,
        execute: () => sql`
          select id, ${sql.unsafe(rfc3339("at"))} as at, account_id, api_key_id,
            user_id, origin, method, path, tool, article_id, status, duration_ms, request_id
          from audit_log where article_id = ${articleId}
          order by at desc, id desc limit ${limit} offset ${offset}`
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

    return { insert, listForArticle, pruneBefore }
  })
}) {}
