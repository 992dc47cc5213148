import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { contentFields } from "../Domain/Article.js"
import { AccountId, ArticleId, BacklinkId, SiteId, UserId } from "../Domain/Ids.js"

const Text = Schema.NullOr(Schema.String)

/** What an upsert did to one record: inserted it, changed it, or found it already as given. */
const Upserted = <A, I>(id: Schema.Schema<A, I>) =>
  Schema.Struct({ id, inserted: Schema.Boolean, written: Schema.Boolean })

export type Outcome = "created" | "updated" | "unchanged"

const outcomeOf = (row: { readonly inserted: boolean; readonly written: boolean }): Outcome =>
  row.inserted ? "created" : row.written ? "updated" : "unchanged"

const SiteRecord = Schema.Struct({
  account_id: AccountId,
  name: Text,
  website_url: Schema.String,
  language: Text,
  country: Text,
  geographic_scope: Text,
  industry: Text
})

const ArticleRecord = Schema.Struct({
  site_id: SiteId,
  title: Text,
  url: Schema.String,
  status: Text,
  published_at: Text,
  target_keyword: Text,
  meta_description: Text,
  featured_image_url: Text,
  body: Schema.String,
  word_count: Schema.Number,
  body_text: Schema.String,
  /** As Articles/StoredLinks.storedLinks writes them. */
  protected_links: Schema.String,
  protected_links_sha256: Schema.Uint8ArrayFromSelf
})

export type ArticleRecord = typeof ArticleRecord.Type

export type BacklinkRecord = typeof BacklinkRecord.Type

/** The content fields an import writes; a change of any of them is a new revision. */
const importedContent = contentFields.filter((field) => field in ArticleRecord.fields)

const BacklinkRecord = Schema.Struct({
  site_id: SiteId,
  acquired_at: Text,
  source_domain: Text,
  source_url: Schema.String,
  target_url: Schema.String,
  anchor_text: Text,
  anchor_type: Text,
  status: Text,
  category: Schema.String
})

const UserRecord = Schema.Struct({
  user_id: UserId,
  account_id: AccountId,
  account_name: Schema.String,
  password_hash: Text
})

/**
 * The SQL of `cbs import`. Each upsert leans on a unique index of migrations/0001_initial.sql and writes a row only
 * when a field differs, so that importing the same file twice changes nothing. A row the upsert left alone is not
 * returned by `returning`: the site upsert finds it in a second branch, in the statement's snapshot; the article and
 * backlink upserts, which write a batch at once, count the rows they did not return as unchanged.
 */
export class ImportRepo extends Effect.Service<ImportRepo>()("Import/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findUser = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRecord,
      execute: (email) => sql`
        select u.id as user_id, u.account_id, a.name as account_name, u.password_hash
        from users u join accounts a on a.id = u.account_id
        where lower(u.email) = lower(${email})`
    })

    const upsertSite = SqlSchema.single({
      Request: SiteRecord,
      Result: Upserted(SiteId),
      execute: (site) => sql`
        with written as (
          insert into sites ${sql.insert(site)}
          on conflict (account_id, website_url) do update set
            name = excluded.name, language = excluded.language, country = excluded.country,
            geographic_scope = excluded.geographic_scope, industry = excluded.industry
          where (sites.name, sites.language, sites.country, sites.geographic_scope, sites.industry)
            is distinct from (excluded.name, excluded.language, excluded.country, excluded.geographic_scope,
              excluded.industry)
          returning id, (xmax = 0) as inserted
        )
        select id, inserted, true as written from written
        union all
        select id, false, false from sites
        where account_id = ${site.account_id} and website_url = ${site.website_url}
          and not exists (select 1 from written)`
    })

    // A batch of one website's articles in one statement (their URLs are distinct: Prepare refuses repeats). A new
    // article starts at revision 1; a change of its content (the fields of ArticleContent an import sets) advances
    // the revision, and RevisionsRepo.storeCurrent then stores it. Only the rows written are returned, each saying
    // whether it became published (was not before).
    const upsertArticles = SqlSchema.findAll({
      Request: Schema.Array(ArticleRecord),
      Result: Schema.Struct({ id: ArticleId, inserted: Schema.Boolean, published: Schema.Boolean }),
      execute: (articles) => sql`
        with previous as (
          select id, status from articles
          where site_id = ${articles[0]!.site_id} and url in ${sql.in(articles.map((article) => article.url))}
        )
        insert into articles ${sql.insert(articles.map((article) => ({ ...article, revision: 1 })))}
        on conflict (site_id, url) do update set
          title = excluded.title, status = excluded.status, published_at = excluded.published_at,
          target_keyword = excluded.target_keyword, meta_description = excluded.meta_description,
          featured_image_url = excluded.featured_image_url, body = excluded.body,
          word_count = excluded.word_count, body_text = excluded.body_text, protected_links = excluded.protected_links,
          protected_links_sha256 = excluded.protected_links_sha256, updated_at = now(),
          revision = case
            when (${sql.csv(importedContent.map((field) => sql`articles.${sql(field)}`))})
              is distinct from (${sql.csv(importedContent.map((field) => sql`excluded.${sql(field)}`))})
            then articles.revision + 1 else articles.revision end
        where (articles.title, articles.status, articles.published_at, articles.target_keyword,
            articles.meta_description, articles.featured_image_url, articles.body, articles.word_count)
          is distinct from (excluded.title, excluded.status, excluded.published_at, excluded.target_keyword,
            excluded.meta_description, excluded.featured_image_url, excluded.body, excluded.word_count)
        returning id, (xmax = 0) as inserted,
          (articles.status is not distinct from 'published'
            and (select p.status from previous p where p.id = articles.id) is distinct from 'published') as published`
    })

    // A batch of one website's backlinks in one statement (their source and target URLs are distinct: the check
    // refuses repeats). Only the rows written are returned.
    const upsertBacklinks = SqlSchema.findAll({
      Request: Schema.Array(BacklinkRecord),
      Result: Schema.Struct({ id: BacklinkId, inserted: Schema.Boolean }),
      execute: (backlinks) => sql`
        insert into backlinks ${sql.insert(backlinks)}
        on conflict (site_id, source_url, target_url) do update set
          acquired_at = excluded.acquired_at, source_domain = excluded.source_domain,
          anchor_text = excluded.anchor_text, anchor_type = excluded.anchor_type,
          status = excluded.status, category = excluded.category,
          -- The pipeline's word on the status stands until the next check; a lost reason only goes with lost.
          lost_reason = case when excluded.status = 'lost' then backlinks.lost_reason end
        where (backlinks.acquired_at, backlinks.source_domain, backlinks.anchor_text, backlinks.anchor_type,
            backlinks.status, backlinks.category)
          is distinct from (excluded.acquired_at, excluded.source_domain, excluded.anchor_text,
            excluded.anchor_type, excluded.status, excluded.category)
        returning id, (xmax = 0) as inserted`
    })

    const withOutcome = <A extends { readonly inserted: boolean; readonly written: boolean }, E>(
      effect: Effect.Effect<A, E>
    ) => Effect.map(Effect.orDie(effect), (row) => ({ ...row, outcome: outcomeOf(row) }))

    return {
      findUser: (email: string) => findUser(email).pipe(Effect.orDie),
      upsertSite: (site: typeof SiteRecord.Type) => withOutcome(upsertSite(site)),
      /** Writes a batch of one website's articles; the ids of those it created or changed, with which it created. */
      upsertArticles: (articles: ReadonlyArray<typeof ArticleRecord.Type>) =>
        articles.length === 0 ? Effect.succeed([]) : upsertArticles(articles).pipe(Effect.orDie),
      /** Writes a batch of one website's backlinks; the ids of those it created or changed, with which it created. */
      upsertBacklinks: (backlinks: ReadonlyArray<typeof BacklinkRecord.Type>) =>
        backlinks.length === 0 ? Effect.succeed([]) : upsertBacklinks(backlinks).pipe(Effect.orDie)
    }
  })
}) {}
