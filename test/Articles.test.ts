// @tags: engine
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Article } from "../src/Domain/Article.js"
import { NotFound } from "../src/Domain/Errors.js"
import { ArticleId, SiteId } from "../src/Domain/Ids.js"
import { ListResponse } from "../src/Domain/Pagination.js"
import type { ArticlesQuery } from "../src/Domain/Queries.js"
import { apiClient, failureOf } from "./support/ApiClient.js"
import { assertError } from "./support/ArticleWrites.js"
import { dateFilterContract } from "./support/DateFilterContract.js"
import { listContract, listedIds } from "./support/ListContract.js"
import {
  type ArticleFields,
  getWithKey as get,
  siteOfNewAccount,
  TestApp,
  TestServerLive
} from "./support/TestServer.js"

/** Creates articles in order; their ids, in the same order. */
const makeArticles = (siteId: SiteId, fields: ReadonlyArray<ArticleFields>) =>
  Effect.flatMap(TestApp, (app) => Effect.forEach(fields, (f) => app.makeArticle(siteId, f)))

/** A website's articles through the typed client; page 1 of 20 unless `query` says otherwise. */
const listArticles = (key: string, siteId: SiteId, query: Partial<ArticlesQuery> = {}) =>
  Effect.gen(function* () {
    const client = yield* apiClient(key)
    return yield* client.articles.listArticles({ path: { id: siteId }, urlParams: { page: 1, per_page: 20, ...query } })
  })

/** One article with its body, through the typed client. */
const getArticle = (key: string, id: ArticleId) =>
  Effect.gen(function* () {
    const client = yield* apiClient(key)
    return yield* client.articles.getArticle({ path: { id: id } })
  })

layer(TestServerLive)("articles", (it) => {
  listContract(it, {
    endpoint: "GET /sites/{id}/articles",
    listWith: (count) =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        // Shared and missing published_at dates, so that every page depends on the tie-breaks of the order.
        yield* makeArticles(
          siteId,
          Array.from({ length: count }, (_, i) => ({
            published_at: i % 3 === 2 ? null : `2026-10-0${1 + (i % 2)}T08:00:00Z`
          }))
        )
        const client = yield* apiClient(key)
        return {
          key,
          path: `/api/v1/sites/${siteId}/articles`,
          list: (page) => client.articles.listArticles({ path: { id: siteId }, urlParams: page })
        }
      })
  })

  dateFilterContract(it, {
    endpoint: "GET /sites/{id}/articles",
    field: "published_at",
    nullable: true,
    listWith: (times) =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const ids = yield* makeArticles(
          siteId,
          times.map((published_at) => (published_at === null ? { published_at, status: "draft" } : { published_at }))
        )
        return { key, path: `/api/v1/sites/${siteId}/articles`, ids, list: (query) => listArticles(key, siteId, query) }
      }),
    refused: [
      ["a malformed from (2026-1-05)", "from=2026-1-05"],
      ["a malformed to (05/10/2026)", "to=05%2F10%2F2026"],
      ["a timestamp as from", "from=2026-10-01T00:00:00Z"],
      ["an impossible from (2026-02-30)", "from=2026-02-30"],
      ["an impossible to (2026-04-31)", "to=2026-04-31"],
      ["from after to", "from=2026-10-12&to=2026-10-10"]
    ]
  })

  describe("GET /api/v1/sites/{id}/articles: fields", () => {
    it.effect("returns every Article field, published_at as an RFC 3339 UTC timestamp, and no body", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const fields = {
          title: "Fixing a dripping tap",
          url: "https://example.com/blog/dripping-tap",
          status: "published",
          published_at: "2026-11-03T09:30:00Z",
          target_keyword: "dripping tap",
          word_count: 812,
          featured_image_url: "https://cdn.example.com/tap.jpg"
        } as const
        const id = yield* app.makeArticle(siteId, { ...fields, body: "<p>Body text.</p>" })
        // The JSON as sent: the typed client would drop a field the schema does not know, such as a body.
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/articles`, key)
        assert.strictEqual(status, 200)
        assert.deepStrictEqual(body.data, [{ id, site_id: siteId, ...fields, revision: 0 }])
      })
    )

    it.effect("published_at stored with another offset is returned in UTC with a Z", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        yield* app.makeArticle(siteId, { published_at: "2026-11-03T10:30:00+01:00" })
        const { data } = yield* listArticles(key, siteId)
        assert.strictEqual(data[0]?.published_at, "2026-11-03T09:30:00Z")
      })
    )

    it.effect("nullable Article fields are present as null", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const fields = {
          title: null,
          url: null,
          status: null,
          published_at: null,
          target_keyword: null,
          word_count: null,
          featured_image_url: null
        }
        const id = yield* app.makeArticle(siteId, fields)
        const { body } = yield* get(`/api/v1/sites/${siteId}/articles`, key)
        assert.deepStrictEqual(body.data, [{ id, site_id: siteId, ...fields, revision: 0 }])
      })
    )
  })

  describe("GET /api/v1/sites/{id}/articles: shape", () => {
    it.effect("the answer is exactly the documented schema: no field missing, none extra, every value valid", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        yield* app.makeArticle(siteId, { status: "draft", word_count: 3, published_at: "2026-11-03T09:30:00Z" })
        yield* app.makeArticle(siteId, { title: null, url: null, status: null, published_at: null, word_count: null })
        const { status, body } = yield* get(`/api/v1/sites/${siteId}/articles`, key)
        assert.strictEqual(status, 200)
        // The rows are served without passing through the encoder, so hold them to the schema here.
        const strict = Schema.decodeUnknownEither(ListResponse(Article, "articles"), { onExcessProperty: "error" })
        const decoded = strict(body)
        assert.isTrue(Either.isRight(decoded), JSON.stringify(body))
        assert.strictEqual(body.data.length, 2)
      })
    )
  })

  describe("GET /api/v1/sites/{id}/articles: ordering", () => {
    it.effect("orders by published_at descending, nulls last, then id descending", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const [early, noDate1, latest, earlyTwin, noDate2, middle] = yield* makeArticles(siteId, [
          { published_at: "2026-10-01T08:00:00Z" },
          { published_at: null, status: "draft" },
          { published_at: "2026-10-05T12:00:00Z" },
          { published_at: "2026-10-01T08:00:00Z" },
          { published_at: null, status: "draft" },
          { published_at: "2026-10-03T00:00:00Z" }
        ])
        const page = yield* listArticles(key, siteId)
        assert.deepStrictEqual(listedIds(page), [latest, middle, earlyTwin, early, noDate2, noDate1])
      })
    )
  })

  describe("GET /api/v1/sites/{id}/articles: status filters", () => {
    it.effect("status filters on the article status, alone and with dates", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        const [draft, scheduled, published, oldPublished] = yield* makeArticles(siteId, [
          { status: "draft", published_at: null },
          { status: "scheduled", published_at: "2026-12-01T08:00:00Z" },
          { status: "published", published_at: "2026-10-01T08:00:00Z" },
          { status: "published", published_at: "2025-10-01T08:00:00Z" }
        ])
        const byStatus = (status: ArticlesQuery["status"]) =>
          listArticles(key, siteId, { status }).pipe(Effect.map(listedIds))
        assert.deepStrictEqual(yield* byStatus("draft"), [draft])
        assert.deepStrictEqual(yield* byStatus("scheduled"), [scheduled])
        assert.deepStrictEqual(yield* byStatus("published"), [published, oldPublished])
        const page = yield* listArticles(key, siteId, { status: "published", from: "2026-01-01" })
        assert.deepStrictEqual(listedIds(page), [published])
        assert.strictEqual(page.meta.total, 1)
      })
    )

    it.effect("an unknown status is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        assertError(yield* get(`/api/v1/sites/${siteId}/articles?status=archived`, key), 422, "validation_error")
      })
    )
  })

  describe("GET /api/v1/articles/{id}", () => {
    it.effect("returns the article with its body and the protected links extracted from it", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const body =
          '<p>See <a data-service-protected="backlink" href="https://partner.example.org/guide">the guide</a>, ' +
          '<a href="https://plain.example.com/">a plain link</a>, ' +
          '<a data-service-protected="other" href="https://not-protected.example.com/">not protected</a> and ' +
          '<a data-service-protected="internal" href="/blog/boilers">our boiler <em>advice</em></a>.</p>'
        const fields = {
          title: "Guides",
          url: "https://example.com/blog/guides",
          status: "published",
          published_at: "2026-11-03T09:30:00Z",
          target_keyword: "guides",
          word_count: 14,
          featured_image_url: null,
          meta_description: "Where to find our guides.",
          body
        } as const
        const id = yield* app.makeArticle(siteId, fields)
        const { data } = yield* getArticle(key, id)
        assert.deepStrictEqual(data, {
          id,
          site_id: siteId,
          ...fields,
          revision: 0,
          protected_links: [
            { type: "backlink", href: "https://partner.example.org/guide", text: "the guide" },
            { type: "internal", href: "/blog/boilers", text: "our boiler advice" }
          ]
        })
      })
    )

    it.effect("an article without protected links has protected_links []", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, siteId } = yield* siteOfNewAccount
        const id = yield* app.makeArticle(siteId, { body: "<p>Nothing linked.</p>" })
        const { data } = yield* getArticle(key, id)
        assert.strictEqual(data.body, "<p>Nothing linked.</p>")
        assert.deepStrictEqual(data.protected_links, [])
      })
    )

    it.effect("an id that does not exist is 404 not_found", () =>
      Effect.gen(function* () {
        const { key } = yield* siteOfNewAccount
        assert.instanceOf(yield* failureOf(getArticle(key, ArticleId.make(999999999))), NotFound)
      })
    )

    for (const id of ["abc", "0", "-1", "1.5", "1e3", "99999999999999999999999"]) {
      it.effect(`GET /articles/${id} is 404 not_found, never 500`, () =>
        Effect.gen(function* () {
          const { key } = yield* siteOfNewAccount
          assertError(yield* get(`/api/v1/articles/${id}`, key), 404, "not_found")
        })
      )
      it.effect(`GET /sites/${id}/articles is 404 not_found, never 500`, () =>
        Effect.gen(function* () {
          const { key } = yield* siteOfNewAccount
          assertError(yield* get(`/api/v1/sites/${id}/articles`, key), 404, "not_found")
        })
      )
    }

    it.effect("GET /sites/{id}/articles of another account's website is 404 not_found, whatever the query", () =>
      Effect.gen(function* () {
        const theirs = yield* siteOfNewAccount
        const { key } = yield* siteOfNewAccount
        for (const query of ["", "?page=99", "?status=draft", "?from=2026-10-12&to=2026-10-10"]) {
          assertError(yield* get(`/api/v1/sites/${theirs.siteId}/articles${query}`, key), 404, "not_found")
        }
      })
    )

    it.effect("a deep page holds the same articles, in the same order, as the pages before it end with", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* siteOfNewAccount
        yield* makeArticles(
          siteId,
          Array.from({ length: 13 }, (_, i) => ({
            published_at: i % 4 === 0 ? null : `2026-10-${String(10 + (i % 3)).padStart(2, "0")}T08:00:00Z`,
            status: i % 4 === 0 ? ("draft" as const) : ("published" as const)
          }))
        )
        const all = listedIds(yield* listArticles(key, siteId, { per_page: 100 }))
        assert.strictEqual(all.length, 13)
        const pages = []
        for (let page = 1; page <= 5; page++)
          pages.push(...listedIds(yield* listArticles(key, siteId, { page, per_page: 3 })))
        assert.deepStrictEqual(pages, all)
        const published = listedIds(yield* listArticles(key, siteId, { status: "published", per_page: 100 }))
        const last = yield* listArticles(key, siteId, { status: "published", page: 3, per_page: 4 })
        assert.deepStrictEqual(listedIds(last), published.slice(8))
        assert.deepStrictEqual(last.meta, { page: 3, per_page: 4, total: 9, last_page: 3 })
      })
    )

    it.effect("GET /sites/{id}/articles for a website that does not exist is 404 not_found", () =>
      Effect.gen(function* () {
        const { key } = yield* siteOfNewAccount
        assert.instanceOf(yield* failureOf(listArticles(key, SiteId.make(999999999))), NotFound)
      })
    )
  })
})
