import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import type { AccountId, ArticleId } from "../../src/Domain/Ids.js"
import { decodeEntities } from "./McpClient.js"
import { open, signedInAccount } from "./WebPages.js"

export const PARTNER = { href: "https://partner.example/", text: "our partner" }
export const PROTECTED_BODY = `<p>Read about <a data-service-protected="backlink" href="${PARTNER.href}">${PARTNER.text}</a> today.</p>`

/** Under `layer(...)` the server runs on the test clock, which starts at the epoch: each test starts it at the real time. */
export const startClock = Effect.suspend(() => TestClock.setTime(Date.now()))

/** An article as stored, read directly. */
export const articleRow = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ title: string; body: string; meta_description: string | null }>`
      select title, body, meta_description from articles where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )
  )

/** An article's revisions, oldest first. */
export const revisions = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ number: number; origin: string; user_id: number | null; body: string; title: string }>`
      select number, origin, user_id, body, title from article_revisions where article_id = ${id} order by number`.pipe(
      Effect.orDie
    )
  )

/** The id of an account's first user. */
export const firstUser = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`select id from users where account_id = ${accountId} order by id limit 1`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )
  )

/** The fields of the article `withArticle` makes, as its editor form shows them. */
export const ORIGINAL_FIELDS = { title: "Pipes in winter", meta_description: "Old meta", body: PROTECTED_BODY }

/** A signed-in user with one article carrying a protected link; the clock started. */
export const withArticle = Effect.gen(function* () {
  yield* startClock
  const account = yield* signedInAccount()
  const site = yield* account.app.makeSite(account.accountId)
  const articleId = yield* account.app.makeArticle(site, {
    title: ORIGINAL_FIELDS.title,
    target_keyword: "frozen pipes",
    word_count: 5,
    featured_image_url: "https://images.example/pipe.png",
    meta_description: ORIGINAL_FIELDS.meta_description,
    body: PROTECTED_BODY
  })
  return { ...account, articleId }
})

/**
 * `withArticle`'s article page, open in its user's browser, and `save`: a submit of its editor form with the page's
 * CSRF token, the fields as they are unless given.
 */
export const articleEditor = Effect.gen(function* () {
  const article = yield* withArticle
  const page = yield* open(article.browser, `/articles/${article.articleId}`)
  const save = (fields: {
    readonly title?: string
    readonly meta_description?: string
    readonly body?: string
    readonly reason?: string
    /** The editor's mode, `rich` or `html`. */
    readonly mode?: string
    /** A button's action, such as `put_back_links`. */
    readonly action?: string
  }) => article.browser.post(`/articles/${article.articleId}/edit`, { csrf: page.csrf, ...ORIGINAL_FIELDS, ...fields })
  return { ...article, page, save }
})

/** What a page's `<textarea name=…>` holds, entities decoded. */
export const textareaValue = (page: string, name: string) => {
  const match = new RegExp(`<textarea[^>]* name="${name}"[^>]*>([\\s\\S]*?)</textarea>`).exec(page)
  return match === null ? undefined : decodeEntities(match[1]!)
}
