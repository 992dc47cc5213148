// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Runtime } from "effect"
import fc from "fast-check"
import { Articles } from "../src/Articles/Articles.js"
import { ArticleEdits } from "../src/Articles/Edits.js"
import { ArticleWithBody, type ContentField, contentFields, contentOf } from "../src/Domain/Article.js"
import { EditArticlePayload, patchChanges } from "../src/Domain/ArticleEdits.js"
import type { Credential } from "../src/Domain/Credential.js"
import type { ArticleId } from "../src/Domain/Ids.js"
import { getWithKey, TestApp, TestServerLive } from "./support/TestServer.js"
import { sized } from "./support/TestSize.js"

// Every test here goes over the content fields as ArticleContent declares them, so a field added there is checked
// through every list derived from it (read, save, revision snapshot, restore, equality, preview flags) with no test
// change.

/** A value of `field` made from `word`, as it is stored: the body is canonical HTML, the other fields text. */
const stored = (field: ContentField, word: string) => (field === "body" ? `<p>${word}</p>` : word)

/** An article's content as a change sends it, every field set from `word`. */
const everyField = (word: string) => Object.fromEntries(contentFields.map((field) => [field, stored(field, word)]))

/** A fresh account's user, as the editor has it, and an article of its own. */
const newArticle = Effect.gen(function* () {
  const app = yield* TestApp
  const sql = yield* SqlClient.SqlClient
  const { accountId } = yield* app.makeAccount()
  const site = yield* app.makeSite(accountId)
  const id = yield* app.makeArticle(site)
  const users = yield* sql<{ id: number }>`select id from users where account_id = ${accountId}`.pipe(Effect.orDie)
  const credential: Credential = {
    kind: "user",
    id: Number(users[0]!.id),
    accountId,
    isAdmin: false,
    canWrite: true
  }
  return { credential, id }
})

const read = (credential: Credential, id: ArticleId) =>
  Effect.flatMap(Articles, (articles) => articles.get(credential, id)).pipe(Effect.orDie)

layer(TestServerLive)("article content: one declaration", (it) => {
  describe("every content field", () => {
    it.effect(
      "changing only one content field is a change: one new revision whose snapshot holds it, readable, and restoring the revision before brings it back",
      () =>
        Effect.gen(function* () {
          const run = Runtime.runPromise(
            yield* Effect.runtime<ArticleEdits | Articles | TestApp | SqlClient.SqlClient>()
          )
          const edits = yield* ArticleEdits
          const step = fc.record({ field: fc.constantFrom(...contentFields), word: fc.constantFrom("alpha", "beta") })
          const property = fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) =>
            run(
              Effect.gen(function* () {
                const { credential, id } = yield* newArticle
                const context = { credential, origin: "editor" as const }
                yield* edits.edit(context, id, everyField("start")).pipe(Effect.orDie)
                for (const { field, word } of steps) {
                  const value = stored(field, word)
                  const before = yield* read(credential, id)
                  const changes = before[field] !== value
                  const label = `${field} = ${value}`

                  const { preview } = yield* edits.previewEdit(context, id, { [field]: value }).pipe(Effect.orDie)
                  const flags = Object.entries(preview ?? {}).filter(([key]) => key.endsWith("_changed"))
                  assert.strictEqual(preview?.changed, changes, label)
                  for (const [flag, raised] of flags) {
                    assert.strictEqual(raised, changes && flag === `${field}_changed`, `${label}: ${flag}`)
                  }

                  const saved = yield* edits.edit(context, id, { [field]: value }).pipe(Effect.orDie)
                  assert.strictEqual(saved[field], value, label)
                  const after = yield* read(credential, id)
                  assert.deepStrictEqual(contentOf(after), { ...contentOf(before), [field]: value }, label)
                  const history = yield* edits.history(id)
                  if (!changes) {
                    assert.strictEqual(after.revision, before.revision, `${label}: no change, no revision`)
                    continue
                  }
                  assert.strictEqual(after.revision, before.revision + 1, label)
                  assert.strictEqual(history[0]?.number, after.revision, label)
                  assert.deepStrictEqual(contentOf(history[0]!), contentOf(after), `${label}: the snapshot`)

                  yield* edits.restore(context, id, before.revision).pipe(Effect.orDie)
                  const restored = yield* read(credential, id)
                  assert.strictEqual(restored.revision, after.revision + 1, `${label}: a restore is a revision`)
                  assert.deepStrictEqual(contentOf(restored), contentOf(before), `${label}: restored`)
                }
              })
            )
          )
          yield* Effect.promise(() => fc.assert(property, { numRuns: sized(40, 8) }))
        })
    )

    it.effect("a revision stored from the article as it is (after an import) holds every content field", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const articles = yield* Articles
        const edits = yield* ArticleEdits
        const { credential, id } = yield* newArticle
        yield* edits.edit({ credential, origin: "editor" }, id, everyField("start")).pipe(Effect.orDie)
        for (const field of contentFields) {
          const value = stored(field, `stored ${field}`)
          yield* sql`update articles set ${sql.update({ [field]: value })}, revision = revision + 1
            where id = ${id}`.pipe(Effect.orDie)
          yield* articles.storeRevisions([id], "rewrite", null)
          const [latest] = yield* edits.history(id)
          assert.strictEqual(latest?.[field], value, field)
          assert.deepStrictEqual(contentOf(latest!), contentOf(yield* read(credential, id)), field)
        }
      })
    )

    it.effect("every field a change may send is a field an article is read with", () =>
      Effect.sync(() => {
        const readable = Object.keys(ArticleWithBody.fields)
        const sent = [
          ...patchChanges.filter((field) => field !== "replacements"),
          ...Object.keys(EditArticlePayload.fields).filter((field) => field !== "reason")
        ]
        assert.includeMembers(readable, sent)
        assert.includeMembers(readable, [...contentFields])
      })
    )
  })

  describe("meta_description through the doors", () => {
    it.effect("GET /articles/{id} carries the meta_description a PATCH wrote, and null for an article without", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const id = yield* app.makeArticle(yield* app.makeSite(accountId), { meta_description: null })
        const get = getWithKey(`/api/v1/articles/${id}`, key)
        assert.isNull((yield* get).body.data.meta_description)
        const patched = yield* app.fetch(`/api/v1/articles/${id}`, {
          method: "PATCH",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ meta_description: "Five steps." })
        })
        assert.strictEqual(patched.status, 200)
        assert.strictEqual((yield* Effect.promise(() => patched.json())).data.meta_description, "Five steps.")
        assert.strictEqual((yield* get).body.data.meta_description, "Five steps.")
      })
    )
  })
})
