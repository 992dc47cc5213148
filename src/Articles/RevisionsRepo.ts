import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { contentFields } from "../Domain/Article.js"
import { RevisionOrigin } from "../Domain/Credential.js"
import { ArticleId } from "../Domain/Ids.js"
import { NewRevision, RevisionEntry, RevisionRow } from "../Domain/Revision.js"
import { rfc3339 } from "../Sql/SqlFormats.js"

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
    const storeCurrent = SqlSchema.void({
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
          and not exists (select 1 from article_revisions r where r.article_id = a.id and r.number = a.revision)`
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

    // Newest first, along article_revisions_article_number_key; the joins are by primary key.
    const entries = SqlSchema.findAll({
      Request: Schema.Number,
      Result: RevisionEntry,
      execute: (id) => sql`
        select r.number, ${sql.unsafe(rfc3339("r.created_at"))} as created_at,
          r.origin, r.reason, u.email as user_email, k.name as key_name, k.prefix as key_prefix
        from article_revisions r
        left join users u on u.id = r.user_id
        left join api_keys k on k.id = r.api_key_id
        where r.article_id = ${id}
        order by r.number desc`
    })

    return {
      entries: (articleId: ArticleId) => entries(articleId).pipe(Effect.orDie),
      insert: (revision: typeof NewRevision.Type) => insert(revision).pipe(Effect.orDie),
      /**
       * Stores each article's current content as its current revision number (`articles.revision`), where that
       * revision is not stored yet: after a write that set or advanced the number without a credential, such as an
       * import. Articles still at revision 0 store nothing.
       */
      storeCurrent: (ids: ReadonlyArray<ArticleId>, origin: RevisionOrigin, reason: string | null) =>
        ids.length === 0 ? Effect.void : storeCurrent({ ids, origin, reason }).pipe(Effect.orDie),
      find: (articleId: ArticleId, number: number) => find({ article_id: articleId, number }).pipe(Effect.orDie),
      listForArticle: (articleId: ArticleId) => listForArticle(articleId).pipe(Effect.orDie)
    }
  })
}) {}
