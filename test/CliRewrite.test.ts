// @tags: engine
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { cbs } from "./support/Cbs.js"
import { tempFile } from "./support/CbsProcess.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const htmlFile = (contents: string) => tempFile("body.html", contents)

const PARTNER = `<a data-service-protected="backlink" href="https://partner.example/">our partner</a>`

let counter = 0

/**
 * An account with a user, a website and an article whose body has a protected link; the article's and user's ids.
 * The clock is started at the real time first (under `layer(...)` it starts at the epoch).
 */
const makeArticle = Effect.gen(function* () {
  yield* TestClock.setTime(Date.now())
  const email = `rewrite${++counter}@example.com`
  const created = yield* cbs("account", "create", "--email", email, "--name", "Rewrite Ltd")
  assert.isTrue(created.ok, created.stderr)
  const sql = yield* SqlClient.SqlClient
  const [user] = yield* sql<{ id: number; account_id: number }>`select id, account_id from users where email = ${email}`
  const [site] = yield* sql<{ id: number }>`insert into sites ${sql.insert({
    account_id: user!.account_id,
    name: "Rewrites",
    website_url: `https://rewrite${counter}.example.com`
  })} returning id`
  const [article] = yield* sql<{ id: number }>`insert into articles ${sql.insert({
    site_id: site!.id,
    title: "Old",
    body: `<p>Read about ${PARTNER} today.</p>`
  })} returning id`
  return { articleId: Number(article!.id), userId: Number(user!.id) }
})

const revisionsOf = (articleId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ number: number; origin: string; user_id: number | null; reason: string | null; body: string }>`
      select number, origin, user_id, reason, body from article_revisions where article_id = ${articleId}`
  )

/** `cbs article rewrite --id articleId --file file …more`. */
const rewrite = (articleId: number, file: string, ...more: ReadonlyArray<string>) =>
  cbs("article", "rewrite", "--id", String(articleId), "--file", file, ...more)

const TestLive = TestDatabaseLive.pipe(Layer.merge(NodeContext.layer))

layer(TestLive)("cbs article rewrite", (it) => {
  describe("rewrite", () => {
    it.scoped(
      "stores the new body as a revision with origin rewrite, as the account's user, and prints its number",
      () =>
        Effect.gen(function* () {
          const { articleId, userId } = yield* makeArticle
          const file = yield* htmlFile(`<p>Rewritten, still linking ${PARTNER}.</p>`)
          const result = yield* rewrite(articleId, file, "--reason", "refresh")
          assert.isTrue(result.ok, result.stderr)
          const revisions = yield* revisionsOf(articleId)
          assert.strictEqual(revisions.length, 1)
          const [revision] = revisions
          assert.strictEqual(result.stdout, `revision: ${revision!.number}`)
          assert.strictEqual(revision!.origin, "rewrite")
          assert.strictEqual(Number(revision!.user_id), userId)
          assert.strictEqual(revision!.reason, "refresh")
          assert.include(revision!.body, "Rewritten")
        })
    )

    it.scoped("a rewrite that drops a protected link fails with one line naming it and stores nothing", () =>
      Effect.gen(function* () {
        const { articleId } = yield* makeArticle
        const file = yield* htmlFile("<p>No partner any more.</p>")
        const result = yield* rewrite(articleId, file)
        assert.isFalse(result.ok)
        assert.strictEqual(result.stderr.split("\n").length, 1)
        assert.match(result.stderr, /^cbs: .*protected link.*https:\/\/partner\.example\//)
        assert.strictEqual((yield* revisionsOf(articleId)).length, 0)
      })
    )

    it.scoped("a disallowed construct or a missing article fails with one line and stores nothing", () =>
      Effect.gen(function* () {
        const { articleId } = yield* makeArticle
        const script = yield* htmlFile(`<p>${PARTNER}</p><script>alert(1)</script>`)
        const refused = yield* rewrite(articleId, script)
        assert.isFalse(refused.ok)
        assert.match(refused.stderr, /^cbs: The body contains a disallowed construct: .*script/)
        const missing = yield* rewrite(999999999, script)
        assert.isFalse(missing.ok)
        assert.strictEqual(missing.stderr, "cbs: no article has id 999999999")
        assert.strictEqual((yield* revisionsOf(articleId)).length, 0)
      })
    )

    it.scoped(
      "a reason over 2,000 characters or a NUL in the body is refused as PUT refuses it, and stores nothing",
      () =>
        Effect.gen(function* () {
          const { articleId } = yield* makeArticle
          const file = yield* htmlFile(`<p>Rewritten, still linking ${PARTNER}.</p>`)
          const long = yield* rewrite(articleId, file, "--reason", "r".repeat(2001))
          assert.isFalse(long.ok)
          assert.strictEqual(long.stderr, "cbs: reason: must be at most 2000 characters")
          const nul = yield* htmlFile(`<p>Nul \u0000 ${PARTNER}.</p>`)
          const refused = yield* rewrite(articleId, nul)
          assert.isFalse(refused.ok)
          assert.match(refused.stderr, /^cbs: body: must not contain NUL/)
          assert.strictEqual((yield* revisionsOf(articleId)).length, 0)
        })
    )
  })
})
