import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AccountId, ArticleId } from "../../src/Domain/Ids.js"
import { TestApp } from "./TestServer.js"

/** A protected link, as an article's `protected_links` lists it, and a body that carries it. */
export const PARTNER = { type: "backlink", href: "https://partner.example/", text: "our partner" }
export const PROTECTED_BODY = `<p>Read about <a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a> today.</p>`

/** A website with two published articles (one with a protected link), a draft, and three backlinks. */
export const makeFixtures = (accountId: AccountId) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const site = yield* app.makeSite(accountId, {
      name: "Plumbing Co",
      language: "en",
      country: "GB",
      geographic_scope: "national",
      industry: "Plumbing"
    })
    const linked = yield* app.makeArticle(site, {
      title: "Fixing a leak",
      published_at: "2026-10-01T08:00:00Z",
      target_keyword: "leak",
      meta_description: "How to fix a leak.",
      body: PROTECTED_BODY,
      word_count: 5
    })
    const later = yield* app.makeArticle(site, {
      title: "Choosing a boiler",
      published_at: "2026-10-05T09:30:00Z",
      body: "<p>Some text about boilers.</p>",
      word_count: 4
    })
    const draft = yield* app.makeArticle(site, { title: "Draft", status: "draft", published_at: null })
    yield* app.makeBacklink(site, { acquired_at: "2026-10-02T00:00:00Z", category: "industry" })
    yield* app.makeBacklink(site, { acquired_at: "2026-10-04T00:00:00Z", category: "local" })
    yield* app.makeBacklink(site, { acquired_at: "2026-09-20T00:00:00Z", category: "industry" })
    return { site, linked, later, draft }
  })
export type Fixtures = Effect.Effect.Success<ReturnType<typeof makeFixtures>>

/** A website of another account with one article. */
export const foreignArticle = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId } = yield* app.makeAccount()
  const site = yield* app.makeSite(accountId)
  const article = yield* app.makeArticle(site, { title: "Not yours", body: "<p>Private.</p>" })
  return { site, article }
})

/** An article's title, body and revision number as stored. */
export const storedArticle = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ title: string | null; body: string; revision: number }>`
      select title, body, revision from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!
  })
