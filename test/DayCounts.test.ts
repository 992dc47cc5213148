// @tags: engine
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option, Runtime } from "effect"
import fc from "fast-check"
import { type ArticleFilter, ArticlesRepo } from "../src/Articles/Repo.js"
import { type BacklinkFilter, BacklinksRepo } from "../src/Backlinks/Repo.js"
import type { AccountId, SiteId } from "../src/Domain/Ids.js"
import { Importer } from "../src/Import/Import.js"
import { withinUtcDays } from "../src/Sql/SqlFormats.js"
import { StatsRepo } from "../src/Stats/Repo.js"
import { getWithKey, TestApp, TestServerLive } from "./support/TestServer.js"
import { sized } from "./support/TestSize.js"

// `meta.total` and the stats are sums over the day counts that migrations/0010_day_counts.sql keeps by trigger.
// Whatever writes the rows (an import, SQL behind the service's back, a website's deletion), every total must be
// the count(*) of the rows the list itself would page through.

let counter = 0
const unique = () => ++counter

/**
 * count(*) of the rows of `table` the list shows: the website's, with `column` (status or category) equal to `value`
 * when given, and `dated` within the filter's UTC days; the list's own conditions, counted row by row.
 */
const countRows = (
  table: "articles" | "backlinks",
  dated: string,
  siteId: SiteId,
  filter: { readonly from?: string | undefined; readonly to?: string | undefined },
  equal: ReadonlyArray<readonly [string, string | undefined]>
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`select count(*)::int as n from ${sql(table)} where ${sql.and([
      sql`site_id = ${siteId}`,
      ...equal.flatMap(([column, value]) => (value === undefined ? [] : [sql`${sql(column)} = ${value}`])),
      ...withinUtcDays(sql, dated, filter)
    ])}`.pipe(Effect.map((rows) => rows[0]!.n))
  ).pipe(Effect.orDie)

/** count(*) of the articles the list shows for `filter`. */
const countArticles = (siteId: SiteId, filter: ArticleFilter) =>
  countRows("articles", "published_at", siteId, filter, [["status", filter.status]])

/** count(*) of the backlinks the list shows for `filter`. */
const countBacklinks = (siteId: SiteId, filter: BacklinkFilter) =>
  countRows("backlinks", "acquired_at", siteId, filter, [
    ["category", filter.category],
    ["status", filter.status]
  ])

/** What the stats must say for `from`..`to`, counted row by row. */
const countStats = (siteId: SiteId, range: { readonly from: string; readonly to: string }) =>
  Effect.all({
    articles_published: countArticles(siteId, { ...range, status: "published" }),
    backlinks_industry: countBacklinks(siteId, { ...range, category: "industry" }),
    backlinks_local: countBacklinks(siteId, { ...range, category: "local" }),
    // Live and lost now, whenever acquired: not bounded by the range.
    backlinks_live: countBacklinks(siteId, { status: "live" }),
    backlinks_lost: countBacklinks(siteId, { status: "lost" })
  })

/**
 * Rows of the count tables that the rows themselves do not add up to (either way), and counts of zero or less; of
 * the websites `sites`, or of all.
 */
const countTableDrift = (sites?: ReadonlyArray<SiteId>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const of = sites === undefined ? sql`true` : sql`site_id in ${sql.in([...sites])}`
    const articles = sql`select site_id, (published_at at time zone 'UTC')::date, status, count(*)::int8
      from articles where ${of} group by 1, 2, 3`
    const articleCounts = sql`select site_id, day, status, count from article_day_counts where ${of}`
    const backlinks = sql`select site_id, (acquired_at at time zone 'UTC')::date, category, status, count(*)::int8
      from backlinks where ${of} group by 1, 2, 3, 4`
    const backlinkCounts = sql`select site_id, day, category, status, count from backlink_day_counts where ${of}`
    const [drift] = yield* sql<{ articles: number; backlinks: number; empty: number }>`
      select
        (select count(*)::int from (
          (${articles} except all ${articleCounts}) union all (${articleCounts} except all ${articles})
        ) d) as articles,
        (select count(*)::int from (
          (${backlinks} except all ${backlinkCounts}) union all (${backlinkCounts} except all ${backlinks})
        ) d) as backlinks,
        (select count(*)::int from article_day_counts where ${of} and count <= 0)
          + (select count(*)::int from backlink_day_counts where ${of} and count <= 0) as empty`
    return drift!
  }).pipe(Effect.orDie)

const migrationsDir = fileURLToPath(new URL("../migrations/", import.meta.url))
/** The migration files, in order: their names and texts. */
const migrationFiles = Effect.sync(() =>
  readdirSync(migrationsDir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => [name, readFileSync(join(migrationsDir, name), "utf8")] as const)
)

// --- Random rows and changes ------------------------------------------------------------------------------------

/** Instants on and next to the edges of three UTC days and of years 0001-9999, one given with an offset. */
const INSTANTS = [
  null,
  "0001-01-01T00:00:00Z",
  "2026-02-28T23:59:59Z",
  "2026-03-01T00:00:00Z",
  "2026-03-01T23:59:59.999Z",
  "2026-03-02T00:30:00+01:00",
  "2026-03-02T12:00:00Z",
  "2026-03-03T00:00:00Z",
  "9999-12-31T23:59:59Z"
] as const
const DAYS = ["0001-01-01", "2026-02-28", "2026-03-01", "2026-03-02", "2026-03-03", "9999-12-31"] as const
const STATUSES = ["draft", "scheduled", "published"] as const
const CATEGORIES = ["industry", "local"] as const
const BACKLINK_STATUSES = ["pending", "live", "lost"] as const
const TIME_ZONES = ["UTC", "Pacific/Kiritimati", "America/Los_Angeles", "Asia/Kolkata"] as const

const instant = fc.constantFrom(...INSTANTS)
const articleFields = { site: fc.nat(1), status: fc.constantFrom(null, ...STATUSES), published_at: instant }
const articleRow = fc.record(articleFields)
const backlinkRow = fc.record({
  site: fc.nat(1),
  category: fc.constantFrom(...CATEGORIES),
  status: fc.constantFrom(null, ...BACKLINK_STATUSES),
  acquired_at: instant
})
/** Every `every`-th row (by id) of the two websites. */
const selection = { every: fc.integer({ min: 1, max: 4 }), offset: fc.nat(3) }

const step = fc.oneof(
  fc.record({ kind: fc.constant("insert articles" as const), rows: fc.array(articleRow, { maxLength: 10 }) }),
  fc.record({
    kind: fc.constant("upsert articles" as const),
    rows: fc.array(fc.record({ ...articleFields, url: fc.nat(12) }), { maxLength: 8 })
  }),
  fc.record({
    kind: fc.constant("update articles" as const),
    ...selection,
    set: fc.record(
      { status: fc.constantFrom(null, ...STATUSES), published_at: instant, site: fc.nat(1) },
      { requiredKeys: [] }
    )
  }),
  fc.record({ kind: fc.constant("delete articles" as const), ...selection }),
  fc.record({ kind: fc.constant("insert backlinks" as const), rows: fc.array(backlinkRow, { maxLength: 10 }) }),
  fc.record({
    kind: fc.constant("update backlinks" as const),
    ...selection,
    set: fc.record(
      {
        category: fc.constantFrom(...CATEGORIES),
        status: fc.constantFrom(null, ...BACKLINK_STATUSES),
        acquired_at: instant,
        site: fc.nat(1)
      },
      { requiredKeys: [] }
    )
  }),
  fc.record({ kind: fc.constant("delete backlinks" as const), ...selection })
)

const day = fc.option(fc.constantFrom(...DAYS), { nil: undefined })
const filter = fc.record({
  site: fc.nat(1),
  from: day,
  to: day,
  status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
  category: fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }),
  backlinkStatus: fc.option(fc.constantFrom(...BACKLINK_STATUSES), { nil: undefined }),
  page: fc.constantFrom(1, 2, 1000)
})

type Step = typeof step extends fc.Arbitrary<infer A> ? A : never

/** Applies one change in SQL, as something behind the service's back would, in a session of `timeZone`. */
const apply = (sites: readonly [SiteId, SiteId], change: Step, timeZone: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(applyIn(sql, sites, change, timeZone))).pipe(
    Effect.orDie
  )

const applyIn = (sql: SqlClient.SqlClient, sites: readonly [SiteId, SiteId], change: Step, timeZone: string) =>
  Effect.gen(function* () {
    yield* sql`select set_config('TimeZone', ${timeZone}, true)`
    const chosen = "every" in change ? sql`id % ${change.every} = ${change.offset % change.every}` : sql`true`
    const ofSites = sql`site_id in ${sql.in([...sites])}`
    switch (change.kind) {
      case "insert articles":
        if (change.rows.length === 0) return
        yield* sql`insert into articles ${sql.insert(
          change.rows.map((row) => ({
            site_id: sites[row.site]!,
            url: `https://example.com/${unique()}`,
            status: row.status,
            published_at: row.published_at
          }))
        )}`
        return
      case "upsert articles": {
        // As the import writes: one statement that inserts new URLs and changes known ones.
        const rows = new Map(change.rows.map((row) => [`${row.site} ${row.url}`, row]))
        if (rows.size === 0) return
        yield* sql`insert into articles ${sql.insert(
          [...rows.values()].map((row) => ({
            site_id: sites[row.site]!,
            url: `https://example.com/upserted-${row.url}`,
            status: row.status,
            published_at: row.published_at
          }))
        )} on conflict (site_id, url) do update set status = excluded.status, published_at = excluded.published_at`
        return
      }
      case "update articles": {
        const { site, ...set } = change.set
        const values = { ...set, ...(site === undefined ? {} : { site_id: sites[site]! }) }
        if (Object.keys(values).length === 0) return
        // A moved article takes a URL of its own (URLs are unique per website).
        const url = site === undefined ? sql`` : sql`, url = url || '#' || id`
        yield* sql`update articles set ${sql.update(values)} ${url} where ${ofSites} and ${chosen}`
        return
      }
      case "delete articles":
        yield* sql`delete from articles where ${ofSites} and ${chosen}`
        return
      case "insert backlinks":
        if (change.rows.length === 0) return
        yield* sql`insert into backlinks ${sql.insert(
          change.rows.map((row) => ({
            site_id: sites[row.site]!,
            source_url: `https://news.example.org/${unique()}`,
            target_url: "https://example.com/",
            category: row.category,
            status: row.status,
            acquired_at: row.acquired_at
          }))
        )}`
        return
      case "update backlinks": {
        const { site, ...set } = change.set
        const values = { ...set, ...(site === undefined ? {} : { site_id: sites[site]! }) }
        if (Object.keys(values).length === 0) return
        yield* sql`update backlinks set ${sql.update(values)} where ${ofSites} and ${chosen}`
        return
      }
      case "delete backlinks":
        yield* sql`delete from backlinks where ${ofSites} and ${chosen}`
        return
    }
  })

/** Two new websites of a new account. */
const twoSites = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [account] = yield* sql<{ id: AccountId }>`insert into accounts (name) values ('Counts') returning id`
  const sites = yield* sql<{ id: SiteId }>`insert into sites ${sql.insert(
    [1, 2].map(() => ({ account_id: account!.id, website_url: `https://site${unique()}.example.com` }))
  )} returning id`
  return [sites[0]!.id, sites[1]!.id] as const
}).pipe(Effect.orDie)

// --- The same totals through the API, after imports -------------------------------------------------------------

const importedArticle = (n: number, fields: object = {}) => ({
  title: `Article ${n}`,
  url: `https://imported.example.com/blog/${n}`,
  status: "published",
  published_at: "2026-03-01T08:00:00Z",
  body: "<p>Text.</p>",
  ...fields
})
const importedBacklink = (n: number, fields: object = {}) => ({
  acquired_at: "2026-03-02T00:00:00Z",
  source_url: `https://news.example.org/${n}`,
  target_url: "https://imported.example.com/",
  category: "industry",
  ...fields
})
const importFile = (
  email: string,
  articles: ReadonlyArray<object>,
  backlinks: ReadonlyArray<object>,
  websiteUrl = "https://imported.example.com"
) => ({
  accounts: [{ email, name: "Imported Ltd", sites: [{ website_url: websiteUrl, articles, backlinks }] }]
})

/** Filters of the lists (whole UTC days, either end alone, with a status) and periods of the stats. */
const LIST_FILTERS: ReadonlyArray<Record<string, string>> = [
  {},
  { from: "2026-03-01" },
  { to: "2026-03-01" },
  { from: "2026-03-02", to: "2026-03-02" },
  { from: "0001-01-01", to: "9999-12-31" },
  { status: "published" },
  { status: "draft", from: "2026-02-01" },
  { status: "scheduled", to: "2026-03-31" }
]
const STATS_RANGES = [
  { from: "2026-03-01", to: "2026-03-01" },
  { from: "2026-03-02", to: "2026-03-31" },
  { from: "0001-01-01", to: "9999-12-31" }
]

/**
 * Every list total and every stats count of the website through the API, each against count(*); with a new key of
 * the account each time, so that the requests stay within one key's limit per minute.
 */
const assertApiTotalsExact = (accountId: AccountId, siteId: SiteId) =>
  Effect.gen(function* () {
    const key = yield* (yield* TestApp).makeKey(accountId)
    for (const query of LIST_FILTERS) {
      const params = new URLSearchParams({ ...query, per_page: "2" })
      const articles = yield* getWithKey(`/api/v1/sites/${siteId}/articles?${params}`, key)
      assert.strictEqual(articles.status, 200)
      const expected = yield* countArticles(siteId, query as ArticleFilter)
      assert.strictEqual(articles.body.meta.total, expected, `articles ${params}`)
      if (query["status"] !== undefined) continue
      const backlinks = yield* getWithKey(`/api/v1/sites/${siteId}/backlinks?${params}`, key)
      assert.strictEqual(backlinks.body.meta.total, yield* countBacklinks(siteId, query), `backlinks ${params}`)
    }
    for (const range of STATS_RANGES) {
      const stats = yield* getWithKey(`/api/v1/sites/${siteId}/stats?from=${range.from}&to=${range.to}`, key)
      const expected = yield* countStats(siteId, range)
      assert.deepStrictEqual(
        {
          articles_published: stats.body.data.articles_published,
          backlinks_industry: stats.body.data.backlinks_industry,
          backlinks_local: stats.body.data.backlinks_local,
          backlinks_live: stats.body.data.backlinks_live,
          backlinks_lost: stats.body.data.backlinks_lost
        },
        expected,
        `stats ${range.from}..${range.to}`
      )
      assert.strictEqual(stats.body.data.backlinks_acquired, expected.backlinks_industry + expected.backlinks_local)
    }
  })

const TestLive = Layer.mergeAll(Importer.Default, ArticlesRepo.Default, BacklinksRepo.Default, StatsRepo.Default).pipe(
  Layer.provideMerge(TestServerLive)
)

layer(TestLive)("totals from the day counts", (it) => {
  describe("against count(*)", () => {
    it.effect(
      "after random inserts, upserts, updates and deletes in SQL, in any session time zone, every list total and stats count equals count(*)",
      () =>
        Effect.gen(function* () {
          const run = Runtime.runPromise(
            yield* Effect.runtime<SqlClient.SqlClient | ArticlesRepo | BacklinksRepo | StatsRepo>()
          )
          const articles = yield* ArticlesRepo
          const backlinks = yield* BacklinksRepo
          const stats = yield* StatsRepo
          const property = fc.asyncProperty(
            fc.array(fc.tuple(step, fc.constantFrom(...TIME_ZONES)), { minLength: 1, maxLength: 8 }),
            fc.array(filter, { minLength: 1, maxLength: 6 }),
            (changes, filters) =>
              run(
                Effect.gen(function* () {
                  const sites = yield* twoSites
                  for (const [change, timeZone] of changes) yield* apply(sites, change, timeZone)
                  for (const f of filters) {
                    const siteId = sites[f.site]!
                    const page = { page: f.page, per_page: 2 }
                    const articleFilter = { from: f.from, to: f.to, status: f.status }
                    const articleList = Option.getOrThrow(yield* articles.list(null, siteId, articleFilter, page))
                    assert.strictEqual(articleList.total, yield* countArticles(siteId, articleFilter))
                    const backlinkFilter = { from: f.from, to: f.to, category: f.category, status: f.backlinkStatus }
                    const backlinkList = yield* backlinks.list(siteId, backlinkFilter, page)
                    assert.strictEqual(backlinkList.total, yield* countBacklinks(siteId, backlinkFilter))
                    if (f.from !== undefined && f.to !== undefined) {
                      const range = { from: f.from, to: f.to }
                      assert.deepStrictEqual(yield* stats.counts(siteId, range), yield* countStats(siteId, range))
                    }
                  }
                  assert.deepStrictEqual(yield* countTableDrift(sites), { articles: 0, backlinks: 0, empty: 0 })
                })
              )
          )
          yield* Effect.promise(() => fc.assert(property, { numRuns: sized(60, 12) }))
        })
    )

    it.effect(
      "after an import, the same import again, an import changing statuses and dates, and changes in SQL, the API's totals equal count(*)",
      () =>
        Effect.gen(function* () {
          const importer = yield* Importer
          const sql = yield* SqlClient.SqlClient
          const email = `counts${unique()}@example.com`
          const articles = [
            importedArticle(1),
            importedArticle(2, { published_at: "2026-03-01T23:59:59Z" }),
            importedArticle(3, { status: "scheduled", published_at: "2026-03-02T00:00:00Z" }),
            importedArticle(4, { status: "draft", published_at: null }),
            importedArticle(5, { status: null, published_at: "2026-02-28T23:59:59Z" })
          ]
          const backlinks = [
            importedBacklink(1),
            importedBacklink(2, { category: "local", acquired_at: "2026-03-01T00:00:00Z" }),
            importedBacklink(3, { acquired_at: null })
          ]
          yield* importer.importValue(importFile(email, articles, backlinks), "first.json")
          const [owner] = yield* sql<{ account_id: AccountId }>`select account_id from users where email = ${email}`
          const [site] = yield* sql<{ id: SiteId }>`select id from sites where account_id = ${owner!.account_id}`
          const siteId = site!.id
          assert.strictEqual(yield* countArticles(siteId, {}), 5)
          yield* assertApiTotalsExact(owner!.account_id, siteId)

          yield* importer.importValue(importFile(email, articles, backlinks), "again.json")
          yield* assertApiTotalsExact(owner!.account_id, siteId)

          const changed = [
            importedArticle(1, { status: "draft" }),
            importedArticle(2, { published_at: "2026-03-02T00:00:00Z" }),
            importedArticle(3, { status: "published" }),
            importedArticle(4, { status: "published", published_at: "2026-03-31T12:00:00Z" }),
            importedArticle(5),
            importedArticle(6, { status: "scheduled", published_at: "2026-04-01T00:00:00Z" })
          ]
          const movedBacklinks = [
            importedBacklink(1, { category: "local" }),
            importedBacklink(2, { acquired_at: "2026-03-31T23:59:59Z" }),
            importedBacklink(3, { acquired_at: "2026-03-02T10:00:00Z" }),
            importedBacklink(4)
          ]
          yield* importer.importValue(importFile(email, changed, movedBacklinks), "changed.json")
          assert.strictEqual(yield* countArticles(siteId, { status: "published" }), 4)
          yield* assertApiTotalsExact(owner!.account_id, siteId)

          // Behind the service's back.
          yield* sql`delete from articles where site_id = ${siteId} and url like '%/1'`
          yield* sql`update articles set published_at = published_at - interval '1 day' where site_id = ${siteId}`
          yield* sql`update articles set status = 'published' where site_id = ${siteId} and status is null`
          yield* sql`delete from backlinks where site_id = ${siteId} and category = 'local'`
          yield* sql`update backlinks set acquired_at = null where site_id = ${siteId}`
          yield* assertApiTotalsExact(owner!.account_id, siteId)
          assert.deepStrictEqual(yield* countTableDrift(), { articles: 0, backlinks: 0, empty: 0 })
        })
    )

    it.effect("deleting a website deletes its counts with its articles and backlinks", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [siteId, other] = yield* twoSites
        yield* apply(
          [siteId, other],
          {
            kind: "insert articles",
            rows: INSTANTS.map((published_at, i) => ({ site: i % 2, status: "published", published_at }))
          },
          "UTC"
        )
        yield* apply(
          [siteId, other],
          { kind: "insert backlinks", rows: [{ site: 0, category: "local", status: "live", acquired_at: null }] },
          "UTC"
        )
        yield* sql`delete from sites where id = ${siteId}`
        const [left] = yield* sql<{ n: number }>`
          select (select count(*)::int from article_day_counts where site_id = ${siteId})
            + (select count(*)::int from backlink_day_counts where site_id = ${siteId}) as n`
        assert.strictEqual(left!.n, 0)
        const remaining = Option.getOrThrow(
          yield* (yield* ArticlesRepo).list(null, other, {}, { page: 1, per_page: 1 })
        )
        assert.strictEqual(remaining.total, yield* countArticles(other, {}))
        assert.isAbove(remaining.total, 0)
        assert.deepStrictEqual(yield* countTableDrift(), { articles: 0, backlinks: 0, empty: 0 })
      })
    )

    it.effect("the migrations count the articles and backlinks that were there before them (by status too)", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // The migrations up to 0009 in a schema of their own, some rows, then 0010, and 0021 (which counts the
        // backlinks by status too; it needs nothing of the ones between); all rolled back.
        const outcome = yield* Effect.gen(function* () {
          yield* sql`create schema before_counts`
          yield* sql`select set_config('search_path', 'before_counts', true)`
          const files = yield* migrationFiles
          for (const [name, text] of files) if (name < "0010") yield* sql.unsafe(text)
          yield* sql`insert into accounts (name) values ('Before')`
          yield* sql`insert into sites (account_id, website_url) select id, 'https://before.example' from accounts`
          yield* sql`
            insert into articles (site_id, url, status, published_at)
            select s.id, 'https://before.example/' || g, (array['draft', 'scheduled', 'published'])[1 + g % 3],
              case when g % 5 = 0 then null else timestamptz '2026-03-01T00:00:00Z' + g * interval '7 hours' end
            from sites s, generate_series(1, 200) g`
          yield* sql`
            insert into backlinks (site_id, source_url, target_url, category, status, acquired_at)
            select s.id, 'https://news.example/' || g, 'https://before.example/',
              case when g % 2 = 0 then 'local' else 'industry' end, (array['pending', 'live', 'lost'])[1 + g % 3],
              case when g % 7 = 0 then null else timestamptz '2026-03-01T00:00:00Z' + g * interval '5 hours' end
            from sites s, generate_series(1, 100) g`
          for (const [name, text] of files) if (name.startsWith("0010")) yield* sql.unsafe(text)
          for (const [name, text] of files) if (name.startsWith("0021")) yield* sql.unsafe(text)
          const drift = yield* countTableDrift()
          const [sums] = yield* sql<{ articles: number; backlinks: number }>`
            select (select sum(count)::int from article_day_counts) as articles,
              (select sum(count)::int from backlink_day_counts) as backlinks`
          return yield* Effect.fail({ drift, sums })
        }).pipe(sql.withTransaction, Effect.flip)
        assert.deepStrictEqual(outcome, {
          drift: { articles: 0, backlinks: 0, empty: 0 },
          sums: { articles: 200, backlinks: 100 }
        })
      })
    )
  })
})
