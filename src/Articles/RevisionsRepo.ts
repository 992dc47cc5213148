import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ArticleContent, contentFields } from "../Domain/Article.js"
import { RevisionOrigin } from "../Domain/Credential.js"
import { ArticleId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import { NewRevision, RevisionRow, RevisionSummary } from "../Domain/Revision.js"
import { rfc3339 } from "../Sql/SqlFormats.js"
import { changedFields, previousRevision } from "./RevisionSql.js"

export class RevisionsRepo extends Effect.Service<RevisionsRepo>()("Articles/RevisionsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.csv([
      ...Object.keys(NewRevision.fields).map((field) => sql`${sql(field)}`),
      sql`${sql.unsafe(rfc3339("created_at"))} as created_at`
    ])
    const content = sql.csv(contentFields.map((field) => sql`${sql(field)}`))
    const articleContent = sql.csv(contentFields.map((field) => sql`a.${sql(field)}`))

    const insert = SqlSchema.void({
      Request: NewRevision,
      execute: (revision) => sql`insert into article_revisions ${sql.insert(revision)}`
    })

    // One statement for a batch of articles, however many. A revision number already stored is left alone, so the
    // articles whose number did not advance store nothing; the caller's row locks keep the numbers from moving.
    const storeCurrent = SqlSchema.findAll({
      Result: Schema.Struct({ article_id: ArticleId }),
      Request: Schema.Struct({
        ids: Schema.Array(ArticleId),
        origin: RevisionOrigin,
        reason: Schema.NullOr(Schema.String)
      }),
      execute: (req) => sql`
        insert into article_revisions (article_id, number, origin, reason, ${content})
        select a.id, a.revision, ${req.origin}, ${req.reason}, ${articleContent}
        from articles a
        where a.id in ${sql.in(req.ids)} and a.revision > 0
          and not exists (select 1 from article_revisions r where r.article_id = a.id and r.number = a.revision)
        returning article_id`
    })

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ article_id: ArticleId, number: Schema.Number }),
      Result: RevisionRow,
      execute: (req) =>
        sql`select ${columns} from article_revisions where article_id = ${req.article_id} and number = ${req.number}`
    })

    // Newest first, along article_revisions_article_number_key.
    const listForArticle = SqlSchema.findAll({
      Request: ArticleId,
      Result: RevisionRow,
      execute: (id) => sql`select ${columns} from article_revisions where article_id = ${id} order by number desc`
    })

    // A revision as the API shows it, against the revision before it (`p`). Who made it: the key's name, else the assistant's, else the person's e-mail.
    const summary = sql`r.number, r.origin, r.reason, ${sql.unsafe(rfc3339("r.created_at"))} as created_at,
      coalesce(k.name, c.client_name, u.email) as actor,
      ${changedFields(sql)} as changed`
    // The revision before `r` along article_revisions_article_number_key; the other joins are by primary key (and
    // oauth_clients' unique client_id).
    const joins = sql`${previousRevision(sql)}
      left join users u on u.id = r.user_id
      left join api_keys k on k.id = r.api_key_id
      left join oauth_clients c on c.client_id = r.oauth_client_id`

    // Newest first, along article_revisions_article_number_key.
    const page = (id: ArticleId, page: Page) =>
      Effect.all({
        rows: SqlSchema.findAll({
          Request: ArticleId,
          Result: RevisionSummary,
          execute: (articleId) => sql`select ${summary} from article_revisions r ${joins}
            where r.article_id = ${articleId} order by r.number desc
            limit ${page.per_page} offset ${offsetOf(page)}`
        })(id),
        total: SqlSchema.single({
          Request: ArticleId,
          Result: Schema.Struct({ total: Schema.Number }),
          execute: (articleId) =>
            sql`select count(*)::int as total from article_revisions where article_id = ${articleId}`
        })(id).pipe(Effect.map((row) => row.total))
      }).pipe(Effect.orDie)

    const detail = SqlSchema.findOne({
      Request: Schema.Struct({ article_id: ArticleId, number: Schema.Number }),
      Result: Schema.Struct({
        ...RevisionSummary.fields,
        ...ArticleContent.fields,
        previous_body: Schema.NullOr(Schema.String)
      }),
      execute: (req) => sql`
        select ${summary}, ${sql.csv(contentFields.map((field) => sql`r.${sql(field)}`))}, p.body as previous_body
        from article_revisions r ${joins}
        where r.article_id = ${req.article_id} and r.number = ${req.number}`
    })

    return {
      /** A page of the article's revisions as the API lists them, newest first, and how many it has in all. */
      page,
      /** One revision as the API shows it, with the body of the revision before (null for the first). */
      detail: (articleId: ArticleId, number: number) => detail({ article_id: articleId, number }).pipe(Effect.orDie),
      insert: (revision: typeof NewRevision.Type) => insert(revision).pipe(Effect.orDie),
      /**
       * Stores each article's current content as its current revision number (`articles.revision`), where that
       * revision is not stored yet: after a write that set or advanced the number without a credential, such as an
       * import. Articles still at revision 0 store nothing. The ids of the articles it stored a revision of.
       */
      storeCurrent: (ids: ReadonlyArray<ArticleId>, origin: RevisionOrigin, reason: string | null) =>
        ids.length === 0
          ? Effect.succeed([])
          : storeCurrent({ ids, origin, reason }).pipe(
              Effect.map((rows) => rows.map((row) => row.article_id)),
              Effect.orDie
            ),
      find: (articleId: ArticleId, number: number) => find({ article_id: articleId, number }).pipe(Effect.orDie),
      listForArticle: (articleId: ArticleId) => listForArticle(articleId).pipe(Effect.orDie)
    }
  })
}) {}
