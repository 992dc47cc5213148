// @tags: runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ArticleEdits } from "../src/Articles/Edits.js"
import type { ArticleId } from "../src/Domain/Ids.js"
import { apiClient } from "./support/ApiClient.js"
import { assertError, PARTNER, protectedBody, revisionNumbers, userCredentialOf } from "./support/ArticleWrites.js"
import { editsUsed, useEdits } from "./support/EditQuota.js"
import { patchArticle, putArticle, type RequestOptions, request } from "./support/Http.js"
import { listContract } from "./support/ListContract.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const revisionsPath = (id: number) => `/api/v1/articles/${id}/revisions`

/** POST …/revisions/{n}/restore with the key, a JSON body (an empty object unless given) and more options. */
const restore = (id: number, n: number | string, key: string, options: RequestOptions & { query?: string } = {}) =>
  request("POST", `${revisionsPath(id)}/${n}/restore${options.query ?? ""}`, { key, json: {}, ...options })

const get = (path: string, key: string) => request("GET", path, { key })

/** Stores `count` revisions of the article directly (numbers 1…count, each a new body), as a long history would be. */
const storeRevisions = (id: ArticleId, count: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`insert into article_revisions (article_id, number, origin, body)
      select ${id}, n, 'rewrite', '<p>Version ' || n || '.</p>' from generate_series(1, ${count}) n`.pipe(Effect.orDie)
  )

/**
 * A new account's article with three revisions made through the API, each changing one thing: 1 the title (from an
 * article that had no revision: the title and body count as changed), 2 the body, 3 the meta description.
 */
const articleWithHistory = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId, key, email } = yield* app.makeAccount()
  const site = yield* app.makeSite(accountId)
  const id = yield* app.makeArticle(site, { title: "Leaks", body: "<p>First.</p>\n<p>Kept.</p>" })
  const sql = yield* SqlClient.SqlClient
  const [named] = yield* sql<{ name: string }>`select name from api_keys where account_id = ${accountId}`.pipe(
    Effect.orDie
  )
  for (const [edit, json] of [
    [patchArticle, { title: "Fixing leaks", reason: "clearer title" }],
    [putArticle, { body: "<p>Second.</p>\n<p>Kept.</p>" }],
    [patchArticle, { meta_description: "How to fix a leak." }]
  ] as const) {
    const answer = yield* edit(id, key, json)
    assert.strictEqual(answer.status, 200, answer.text)
  }
  return { accountId, key, email, id, keyName: named!.name }
})

/** The article as GET answers it, and its revision numbers: what a refused or previewed change must leave alone. */
const stateOf = (id: ArticleId, key: string) =>
  Effect.all({
    article: get(`/api/v1/articles/${id}`, key).pipe(Effect.map((a) => a.text)),
    numbers: revisionNumbers(id)
  })

layer(TestServerLive)("article revisions through the API", (it) => {
  listContract(it, {
    endpoint: "GET /articles/{id}/revisions",
    idField: "number",
    listWith: (count) =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const id = yield* app.makeArticle(yield* app.makeSite(accountId))
        if (count > 0) yield* storeRevisions(id, count)
        const client = yield* apiClient(key)
        return {
          key,
          path: revisionsPath(id),
          list: (page) => client.revisions.listRevisions({ path: { id }, urlParams: page })
        }
      })
  })

  describe("reading", () => {
    it.effect("the list is newest first, each with origin, reason, actor and the content fields it changed", () =>
      Effect.gen(function* () {
        const { accountId, key, email, id, keyName } = yield* articleWithHistory
        // A restore in the editor: origin editor, made by the signed-in person.
        const edits = yield* ArticleEdits
        const person = yield* userCredentialOf(accountId)
        yield* edits.restore({ credential: person, origin: "editor" }, id, 1)
        const list = yield* get(revisionsPath(id), key)
        assert.strictEqual(list.status, 200, list.text)
        assert.deepStrictEqual(list.body.meta, { page: 1, per_page: 20, total: 4, last_page: 1 })
        assert.deepStrictEqual(
          list.body.data.map((r: Record<string, unknown>) => [
            r["number"],
            r["origin"],
            r["reason"],
            r["actor"],
            r["changed"]
          ]),
          [
            [4, "editor", "Restored revision 1", email, ["body", "meta_description"]],
            [3, "API", null, keyName, ["meta_description"]],
            [2, "API", null, keyName, ["body"]],
            [1, "API", "clearer title", keyName, ["title", "body"]]
          ]
        )
        assert.match(list.body.data[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      })
    )

    it.effect("a revision is its snapshot with the unified diff of its body against the revision before", () =>
      Effect.gen(function* () {
        const { key, id, keyName } = yield* articleWithHistory
        const second = yield* get(`${revisionsPath(id)}/2`, key)
        assert.strictEqual(second.status, 200, second.text)
        const { created_at, ...rest } = second.body.data
        assert.deepStrictEqual(rest, {
          number: 2,
          origin: "API",
          reason: null,
          actor: keyName,
          changed: ["body"],
          title: "Fixing leaks",
          body: "<p>Second.</p>\n<p>Kept.</p>",
          meta_description: null,
          featured_image_url: null,
          diff: "--- revision 1\n+++ revision 2\n@@ -1,2 +1,2 @@\n-<p>First.</p>\n+<p>Second.</p>\n <p>Kept.</p>\n"
        })
        assert.isString(created_at)
        // Revision 1 against nothing; revision 3 left the body as it was.
        const first = yield* get(`${revisionsPath(id)}/1`, key)
        assert.strictEqual(
          first.body.data.diff,
          "--- (empty)\n+++ revision 1\n@@ -0,0 +1,2 @@\n+<p>First.</p>\n+<p>Kept.</p>\n"
        )
        assert.strictEqual((yield* get(`${revisionsPath(id)}/3`, key)).body.data.diff, "")
      })
    )

    it.effect("a revision that is not there, or an n that cannot name one, is 404 not_found", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        for (const n of ["4", "0", "-1", "1.5", "abc", "1e0", "99999999999999999"]) {
          assertError(yield* get(`${revisionsPath(id)}/${n}`, key), 404, "not_found")
          assertError(yield* restore(id, n, key), 404, "not_found")
        }
      })
    )

    it.effect("another account's article: its revisions are 404 to list, read and restore, and nothing changes", () =>
      Effect.gen(function* () {
        const theirs = yield* articleWithHistory
        const app = yield* TestApp
        const { key } = yield* app.makeAccount()
        const before = yield* stateOf(theirs.id, theirs.key)
        assertError(yield* get(revisionsPath(theirs.id), key), 404, "not_found")
        assertError(yield* get(`${revisionsPath(theirs.id)}/1`, key), 404, "not_found")
        assertError(yield* restore(theirs.id, 1, key), 404, "not_found")
        assert.deepStrictEqual(yield* stateOf(theirs.id, theirs.key), before)
      })
    )
  })

  describe("restoring", () => {
    it.effect("restore makes a new revision with the old content, origin API, and answers like PATCH", () =>
      Effect.gen(function* () {
        const { key, id, keyName } = yield* articleWithHistory
        const restored = yield* restore(id, 1, key, { json: { reason: "back to the start" } })
        assert.strictEqual(restored.status, 200, restored.text)
        assert.strictEqual(restored.body.data.revision, 4)
        assert.strictEqual(restored.body.data.body, "<p>First.</p>\n<p>Kept.</p>")
        assert.strictEqual(restored.body.data.meta_description, null)
        assert.notProperty(restored.body, "preview")
        const [latest] = (yield* get(revisionsPath(id), key)).body.data
        assert.deepInclude(latest, { number: 4, origin: "API", reason: "back to the start", actor: keyName })
        assert.deepStrictEqual(latest.changed, ["body", "meta_description"])
        // Without a reason, the restore says what it did.
        assert.strictEqual((yield* restore(id, 2, key)).status, 200)
        assert.strictEqual((yield* get(`${revisionsPath(id)}/5`, key)).body.data.reason, "Restored revision 2")
      })
    )

    it.effect("restoring the current content is 200 and stores no revision", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        const same = yield* restore(id, 3, key)
        assert.strictEqual(same.status, 200, same.text)
        assert.strictEqual(same.body.data.revision, 3)
        assert.deepStrictEqual(yield* revisionNumbers(id), [1, 2, 3])
      })
    )

    it.effect("a stale If-Match is 412 precondition_failed and saves nothing; the current one restores", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        const before = yield* stateOf(id, key)
        assertError(yield* restore(id, 1, key, { headers: { "if-match": '"2"' } }), 412, "precondition_failed")
        assert.deepStrictEqual(yield* stateOf(id, key), before)
        assert.strictEqual((yield* restore(id, 1, key, { headers: { "if-match": '"3"' } })).status, 200)
      })
    )

    it.effect("dry_run=true answers the would-be article and a preview; it saves nothing and uses no quota", () =>
      Effect.gen(function* () {
        const { accountId, key, id } = yield* articleWithHistory
        const before = yield* stateOf(id, key)
        const used = yield* editsUsed(accountId)
        const dry = yield* restore(id, 1, key, { query: "?dry_run=true" })
        assert.strictEqual(dry.status, 200, dry.text)
        assert.strictEqual(dry.body.data.revision, 4)
        assert.deepStrictEqual(dry.body.preview, {
          changed: true,
          diff: "--- current\n+++ proposed\n@@ -1,2 +1,2 @@\n-<p>Second.</p>\n+<p>First.</p>\n <p>Kept.</p>\n",
          title_changed: false,
          meta_description_changed: true,
          current: { title: "Fixing leaks", meta_description: "How to fix a leak." }
        })
        assert.deepStrictEqual(yield* stateOf(id, key), before)
        assert.strictEqual(yield* editsUsed(accountId), used)
      })
    )

    it.effect("with the day's edits used up, a restore is 429 edit_limit_exceeded and saves nothing", () =>
      Effect.gen(function* () {
        const { accountId, key, id } = yield* articleWithHistory
        yield* useEdits(accountId, 200)
        const before = yield* stateOf(id, key)
        assertError(yield* restore(id, 1, key), 429, "edit_limit_exceeded")
        assert.deepStrictEqual(yield* stateOf(id, key), before)
      })
    )

    it.effect("a restore that would drop a protected link the body has now is 422 protected_link_violation", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        // The publishing pipeline placed a backlink in the body after revision 3.
        const sql = yield* SqlClient.SqlClient
        yield* sql`update articles set body = ${protectedBody}, protected_links = null, protected_links_sha256 = null
          where id = ${id}`.pipe(Effect.orDie)
        const before = yield* stateOf(id, key)
        for (const query of ["?dry_run=true", ""]) {
          const refused = yield* restore(id, 1, key, { query })
          assertError(refused, 422, "protected_link_violation")
          assert.deepStrictEqual(refused.body.protected_links, [PARTNER])
        }
        assert.deepStrictEqual(yield* stateOf(id, key), before)
      })
    )

    it.effect("an Idempotency-Key retry replays the first answer and restores once; another revision is 422", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        const headers = { "idempotency-key": "restore-1" }
        const first = yield* restore(id, 1, key, { headers })
        const retry = yield* restore(id, 1, key, { headers })
        assert.strictEqual(retry.status, 200)
        assert.strictEqual(retry.headers.get("idempotent-replayed"), "true")
        assert.strictEqual(retry.text, first.text)
        assert.deepStrictEqual(yield* revisionNumbers(id), [1, 2, 3, 4])
        assertError(yield* restore(id, 2, key, { headers }), 422, "idempotency_key_reused")
      })
    )

    it.effect("no body at all restores with the default reason; a body without its JSON content type is 422", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        const bare = yield* restore(id, 1, key, { json: undefined })
        assert.strictEqual(bare.status, 200, bare.text)
        const [reason] = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ reason: string }>`select reason from article_revisions where article_id = ${id} and number = 4`
        ).pipe(Effect.orDie)
        assert.strictEqual(reason?.reason, "Restored revision 1")
        const untyped = yield* restore(id, 2, key, { json: undefined, body: '{"reason":"x"}' })
        assertError(untyped, 422, "validation_error")
        assert.include(untyped.body.message, "application/json")
        // An edit must say what it changes: PATCH with no body is refused as before.
        assertError(yield* request("PATCH", `/api/v1/articles/${id}`, { key }), 422, "validation_error")
        assert.deepStrictEqual(yield* revisionNumbers(id), [1, 2, 3, 4])
      })
    )

    it.effect("the body is strict: an unknown field is 422 validation_error naming it", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleWithHistory
        const refused = yield* restore(id, 1, key, { json: { reason: "x", revision: 2 } })
        assertError(refused, 422, "validation_error")
        assert.include(refused.body.message, "revision")
      })
    )

    it.effect("the call log row of a restore names the article and the revision it saved", () =>
      Effect.gen(function* () {
        const { accountId, key, id } = yield* articleWithHistory
        assert.strictEqual((yield* restore(id, 1, key)).status, 200)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ article_id: string; revision: number; method: string; path: string }>`
          select article_id, revision, method, path from audit_log
          where account_id = ${accountId} and path like '%/restore'`.pipe(Effect.orDie)
        assert.deepStrictEqual(
          rows.map((row) => ({ ...row, article_id: Number(row.article_id) })),
          [{ article_id: id, revision: 4, method: "POST", path: `${revisionsPath(id)}/1/restore` }]
        )
      })
    )
  })
})
