import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { Accounts } from "../../src/Auth/Accounts.js"
import { ApiKeys } from "../../src/Auth/ApiKeys.js"
import { PasswordHashParameters } from "../../src/Auth/Passwords.js"
import type { AccountId, ArticleId, BacklinkId, SiteId } from "../../src/Domain/Ids.js"
import { bodyText } from "../../src/Html/WordCount.js"
import { HttpServerLive } from "../../src/Server/Server.js"
import type { Database } from "../../src/Sql/Database.js"
import { TestDatabaseLive } from "./TestDatabase.js"

export interface SiteFields {
  readonly name?: string | null
  readonly website_url?: string | null
  readonly language?: string | null
  readonly country?: string | null
  readonly geographic_scope?: string | null
  readonly industry?: string | null
}

export interface ArticleFields {
  readonly title?: string | null
  readonly url?: string | null
  readonly status?: "draft" | "scheduled" | "published" | null
  readonly published_at?: string | null
  readonly target_keyword?: string | null
  readonly word_count?: number | null
  readonly featured_image_url?: string | null
  readonly meta_description?: string | null
  readonly body?: string
}

export interface BacklinkFields {
  readonly acquired_at?: string | null
  readonly source_domain?: string | null
  readonly source_url?: string | null
  readonly target_url?: string | null
  readonly anchor_text?: string | null
  readonly anchor_type?: string | null
  readonly status?: string | null
  readonly category?: "industry" | "local"
}

/** A running server on an ephemeral port with its own fresh database, and builders for fixtures. */
export class TestApp extends Context.Tag("test/TestApp")<
  TestApp,
  {
    readonly baseUrl: string
    /** `fetch` against the server; `path` starts with `/`. */
    readonly fetch: (path: string, init?: RequestInit) => Effect.Effect<Response>
    readonly makeAccount: (options?: {
      readonly email?: string
      readonly admin?: boolean
      readonly password?: string
    }) => Effect.Effect<{ readonly accountId: AccountId; readonly key: string; readonly email: string }>
    readonly makeKey: (accountId: AccountId, options?: { readonly admin?: boolean }) => Effect.Effect<string>
    readonly makeSite: (accountId: AccountId, fields?: SiteFields) => Effect.Effect<SiteId>
    readonly makeArticle: (siteId: SiteId, fields?: ArticleFields) => Effect.Effect<ArticleId>
    readonly makeBacklink: (siteId: SiteId, fields?: BacklinkFields) => Effect.Effect<BacklinkId>
  }
>() {}

const make = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP server")
  const baseUrl = `http://127.0.0.1:${address.port}`
  const sql = yield* SqlClient.SqlClient
  const accounts = yield* Accounts
  const keys = yield* ApiKeys
  let counter = 0
  const next = () => ++counter
  /** Inserts `row` into `table`: the new row's id. */
  const insertRow = <Id>(table: string, row: Record<string, unknown>) =>
    sql<{ id: Id }>`insert into ${sql(table)} ${sql.insert(row)} returning id`.pipe(
      Effect.map((rows) => rows[0]!.id),
      Effect.orDie
    )

  const makeKey = (accountId: AccountId, options?: { readonly admin?: boolean }) =>
    keys.create({ accountId, name: `key ${next()}`, isAdmin: options?.admin ?? false }).pipe(
      Effect.map((created) => created.key),
      Effect.orDie
    )

  return TestApp.of({
    baseUrl,
    fetch: (path, init) => Effect.promise(() => fetch(`${baseUrl}${path}`, init)),
    makeAccount: (options) =>
      Effect.gen(function* () {
        const email = options?.email ?? `user${next()}@example.com`
        const { accountId } = yield* accounts.create({
          email,
          name: `Account ${email}`,
          password: Option.fromNullable(options?.password),
          isAdmin: options?.admin ?? false
        })
        const key = yield* makeKey(accountId, { admin: options?.admin ?? false })
        return { accountId, key, email }
      }).pipe(Effect.orDie),
    makeKey,
    makeSite: (accountId, fields) =>
      insertRow<SiteId>("sites", {
        account_id: accountId,
        name: `Site ${next()}`,
        website_url: `https://site${counter}.example.com`,
        ...fields
      }),
    makeArticle: (siteId, fields) =>
      insertRow<ArticleId>("articles", {
        site_id: siteId,
        title: `Article ${next()}`,
        url: `https://example.com/blog/article-${counter}`,
        status: "published",
        body: "<p>Some text.</p>",
        word_count: 2,
        ...fields,
        // What every write stores with the body: its text, which search reads.
        body_text: bodyText(fields?.body ?? "<p>Some text.</p>").text
      }),
    makeBacklink: (siteId, fields) =>
      insertRow<BacklinkId>("backlinks", {
        site_id: siteId,
        acquired_at: "2026-10-02T00:00:00Z",
        source_domain: "news.example.org",
        source_url: `https://news.example.org/${next()}`,
        target_url: "https://example.com/",
        anchor_text: "example",
        anchor_type: "branded",
        status: "live",
        category: "industry",
        ...fields
      })
  })
})

/**
 * Test runs only: password hashes at scrypt N=2^10 instead of the service's 2^17, for the test users' passwords and
 * everything the test server hashes (a few milliseconds instead of a third of a second each). Tests of the real
 * parameters run without it.
 */
export const CheapPasswordHashesForTests = Layer.succeed(PasswordHashParameters, { N: 2 ** 10, r: 8, p: 1 })

/**
 * The whole service on 127.0.0.1 with a free port, on `database` (a test may put something in between), with
 * `extra` services under it (a test's own policy, say).
 */
export const testServerOn = (database: typeof TestDatabaseLive, extra: Layer.Layer<never> = Layer.empty) =>
  Layer.effect(TestApp, make).pipe(
    Layer.provideMerge(HttpServerLive({ port: 0, host: "127.0.0.1" })),
    Layer.provide(extra),
    Layer.provideMerge(database),
    Layer.provideMerge(CheapPasswordHashesForTests),
    // Access log lines for every test request would drown the output; warnings and errors still show.
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

/** The whole service on 127.0.0.1 with a free port, on a fresh database. */
export const TestServerLive = testServerOn(TestDatabaseLive)

/** GET with an API key (X-API-Key): the status and the parsed JSON body. */
export const getWithKey = (path: string, key: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch(path, { headers: { "x-api-key": key } })
    const body = yield* Effect.promise(() => res.json())
    return { status: res.status, body }
  })

/** A fresh account with one website: its API key and the website's id. */
export const siteOfNewAccount = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId, key } = yield* app.makeAccount()
  const siteId = yield* app.makeSite(accountId)
  return { key, siteId }
})

/** A fresh account with one website and one article built from `fields`. */
export const articleOfNewAccount = (fields?: ArticleFields) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const { accountId, key } = yield* app.makeAccount()
    const siteId = yield* app.makeSite(accountId)
    const id = yield* app.makeArticle(siteId, fields)
    return { key, id, accountId, siteId }
  })

/**
 * The service again, on the test file's database, with `settings` (environment variables) over the environment: for
 * what a setting changes. Its address; it stops with the scope.
 */
export const serverWithSettings = (settings: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const database = Layer.succeedContext(yield* Effect.context<Database>())
    const config = Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map(Object.entries(settings))).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv())
      )
    )
    const context = yield* Layer.build(
      HttpServerLive({ port: 0, host: "127.0.0.1" }).pipe(
        Layer.provide(database),
        Layer.provide(config),
        Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
      )
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP server")
    return `http://127.0.0.1:${address.port}`
  })
