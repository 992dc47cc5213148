// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { assertError, PARTNER, protectedBody, revisionNumbers, storedBody } from "./support/ArticleWrites.js"
import { articleData, patchArticle, putArticle } from "./support/Http.js"
import { articleOfNewAccount, TestServerLive } from "./support/TestServer.js"

layer(TestServerLive)("article writes", (it) => {
  describe("word_count", () => {
    it.effect("is recomputed from the body after PUT and after PATCH", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>one two</p>", word_count: 2 })
        const afterPut = yield* putArticle(id, key, { body: "<p>one two three</p><p>four five</p>" })
        assert.strictEqual(afterPut.body.data.word_count, 5)
        assert.strictEqual((yield* articleData(id, key)).word_count, 5)
        const afterPatch = yield* patchArticle(id, key, { replacements: [{ find: "four five", replace: "four" }] })
        assert.strictEqual(afterPatch.body.data.word_count, 4)
        assert.strictEqual((yield* articleData(id, key)).word_count, 4)
      })
    )
  })

  describe("stored protected links", () => {
    /** The stored links of an article, and whether the digest stored with them is that of the stored body. */
    const storedLinks = (id: ArticleId) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ protected_links: unknown; matches: boolean | null }>`
          select protected_links, protected_links_sha256 = sha256(convert_to(body, 'UTF8')) as matches
          from articles where id = ${id}`.pipe(Effect.orDie)
        return row!
      })
    const otherLink = { type: "internal", href: "/about", text: "about us" }
    const otherBody = '<p>Now with <a data-service-protected="internal" href="/about">about us</a>.</p>'

    it.effect("a write stores the new body's protected links with the body's digest, and reads use them", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        // Written directly in SQL, the article has none stored yet; its links are parsed from the body.
        assert.deepStrictEqual(yield* storedLinks(id), { protected_links: null, matches: null })
        assert.deepStrictEqual((yield* articleData(id, key)).protected_links, [PARTNER])

        const res = yield* patchArticle(id, key, {
          replacements: [{ find: "Second paragraph.", replace: "Second one." }]
        })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.deepStrictEqual(yield* storedLinks(id), { protected_links: [PARTNER], matches: true })

        // Reads take the stored links as they are, without parsing the body again: rewriting the stored text of
        // the link (and nothing else) shows in GET.
        const sql = yield* SqlClient.SqlClient
        const renamed = { ...PARTNER, text: "as stored" }
        yield* sql`update articles set protected_links = ${JSON.stringify([renamed])}::jsonb where id = ${id}`.pipe(
          Effect.orDie
        )
        assert.deepStrictEqual((yield* articleData(id, key)).protected_links, [renamed])
      })
    )

    it.effect("links stored for an earlier body are ignored once the body was changed outside the service", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        assert.strictEqual((yield* patchArticle(id, key, { meta_description: "Stored links now." })).status, 200)
        assert.deepStrictEqual(yield* storedLinks(id), { protected_links: [PARTNER], matches: true })

        const sql = yield* SqlClient.SqlClient
        yield* sql`update articles set body = ${otherBody} where id = ${id}`.pipe(Effect.orDie)
        assert.deepStrictEqual((yield* articleData(id, key)).protected_links, [otherLink])
        // The edit is judged against the links of the body as it is: keeping the new link is fine…
        const kept = yield* patchArticle(id, key, { replacements: [{ find: "Now with", replace: "Today with" }] })
        assert.strictEqual(kept.status, 200, JSON.stringify(kept.body))
        assert.deepStrictEqual(kept.body.data.protected_links, [otherLink])
        assert.deepStrictEqual(yield* storedLinks(id), { protected_links: [otherLink], matches: true })
        // …and removing it is refused, naming it.
        const removed = yield* putArticle(id, key, { body: "<p>No links.</p>" })
        assertError(removed, 422, "protected_link_violation")
        assert.deepStrictEqual(removed.body.protected_links, [otherLink])
      })
    )

    it.effect("a PATCH of text alone in a body the service wrote gives what sanitising the whole body gives", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        const written = yield* putArticle(id, key, {
          body: `${protectedBody}<table><tr><td>one cell</td></tr></table>`
        })
        assert.strictEqual(written.status, 200, JSON.stringify(written.body))
        const res = yield* patchArticle(id, key, {
          replacements: [
            { find: "one cell", replace: "a cell of three words" },
            { find: "Second paragraph.", replace: "Second & last paragraph." }
          ]
        })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        const expected = written.body.data.body
          .replace("one cell", "a cell of three words")
          .replace("Second paragraph.", "Second &amp; last paragraph.")
        assert.strictEqual(res.body.data.body, expected)
        assert.strictEqual(yield* storedBody(id), expected)
        assert.strictEqual(res.body.data.word_count, written.body.data.word_count + 5)
        assert.deepStrictEqual(res.body.data.protected_links, [PARTNER])
        assert.deepStrictEqual(yield* storedLinks(id), { protected_links: [PARTNER], matches: true })
        // The link's own text is still the link's: changing it is refused.
        const renamed = yield* patchArticle(id, key, { replacements: [{ find: PARTNER.text, replace: "someone" }] })
        assertError(renamed, 422, "protected_link_violation")
      })
    )

    it.effect("a body changed outside the service is sanitised whole at the next PATCH, whatever it changes", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        assert.strictEqual((yield* patchArticle(id, key, { meta_description: "Stored links now." })).status, 200)
        const sql = yield* SqlClient.SqlClient
        // A handler slipped into the body behind the service's back; the stored links still name the old body.
        const tampered = protectedBody.replace("<p>Second", '<p onclick="steal()">Second')
        assert.notStrictEqual(tampered, protectedBody)
        yield* sql`update articles set body = ${tampered} where id = ${id}`.pipe(Effect.orDie)
        const res = yield* patchArticle(id, key, {
          replacements: [{ find: "Second paragraph.", replace: "Second one." }]
        })
        assertError(res, 422, "disallowed_html")
        assert.strictEqual(yield* storedBody(id), tampered)
      })
    )

    it.effect("a lone surrogate in a body is stored as U+FFFD, and a protected link holding one still matches", () =>
      Effect.gen(function* () {
        // Stored through SQL, the lone surrogate of the link text is already U+FFFD in the database.
        const linked = '<p><a data-service-protected="backlink" href="https://partner.example.com/">caf\ud800</a></p>'
        const { key, id } = yield* articleOfNewAccount({ body: linked })
        const res = yield* putArticle(id, key, { body: `${linked}<p>More \udc00 text.</p>` })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        const expected =
          '<p><a data-service-protected="backlink" href="https://partner.example.com/">caf\ufffd</a></p><p>More \ufffd text.</p>'
        assert.strictEqual(res.body.data.body, expected)
        assert.strictEqual(yield* storedBody(id), expected)
        assert.deepStrictEqual(yield* storedLinks(id), {
          protected_links: [{ ...PARTNER, text: "caf\ufffd" }],
          matches: true
        })
      })
    )
  })

  describe("concurrency", () => {
    it.effect("10 concurrent PATCHes all succeed, none is lost, and revisions are numbered 1..10", () =>
      Effect.gen(function* () {
        const markers = Array.from({ length: 10 }, (_, i) => i)
        const { key, id } = yield* articleOfNewAccount({
          body: `<p>${markers.map((i) => `[a${i}]`).join(" ")}</p>`
        })
        const results = yield* Effect.all(
          markers.map((i) => patchArticle(id, key, { replacements: [{ find: `[a${i}]`, replace: `[a${i}-done]` }] })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          results.map((r) => r.status),
          markers.map(() => 200)
        )
        const body: string = (yield* articleData(id, key)).body
        for (const i of markers) assert.include(body, `[a${i}-done]`)
        assert.deepStrictEqual(
          yield* revisionNumbers(id),
          markers.map((i) => i + 1)
        )
      })
    )
  })
})
