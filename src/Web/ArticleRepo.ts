import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { RevisionOrigin } from "../Articles/RevisionsRepo.js"
import type { ArticleId } from "../Domain/Ids.js"
import { rfc3339 } from "../SqlFormats.js"

/** A revision as the history lists it, with who made it (a user's e-mail or an API key's name and prefix). */
export class RevisionEntry extends Schema.Class<RevisionEntry>("RevisionEntry")({
  number: Schema.Number,
  created_at: Schema.String,
  origin: RevisionOrigin,
  reason: Schema.NullOr(Schema.String),
  user_email: Schema.NullOr(Schema.String),
  key_name: Schema.NullOr(Schema.String),
  key_prefix: Schema.NullOr(Schema.String)
}) {}

/** The article page's own reads; the caller has already checked that the article is the viewer's. */
export class ArticlePageRepo extends Effect.Service<ArticlePageRepo>()("Web/ArticlePageRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const metaDescription = SqlSchema.findOne({
      Request: Schema.Number,
      Result: Schema.Struct({ meta_description: Schema.NullOr(Schema.String) }),
      execute: (id) => sql`select meta_description from articles where id = ${id}`
    })

    // Newest first, along article_revisions_article_number_key; the joins are by primary key.
    const history = SqlSchema.findAll({
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
      metaDescription: (id: ArticleId) =>
        metaDescription(id).pipe(
          Effect.map((row) => (row._tag === "Some" ? row.value.meta_description : null)),
          Effect.orDie
        ),
      history: (id: ArticleId) => history(id).pipe(Effect.orDie)
    }
  })
}) {}
