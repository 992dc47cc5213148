// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { assertError, PARTNER, protectedBody, revisionNumbers, storedBody } from "./support/ArticleWrites.js"
import { articleData, patchArticle, putArticle } from "./support/Http.js"
import { articleOfNewAccount, TestServerLive } from "./support/TestServer.js"

/** A new account's article with this body, and the answer to a PATCH of these replacements. */
const patchedArticle = (body: string, replacements: ReadonlyArray<object>) =>
  Effect.gen(function* () {
    const { key, id } = yield* articleOfNewAccount({ body })
    return { key, id, res: yield* patchArticle(id, key, { replacements }) }
  })

layer(TestServerLive)("article writes", (it) => {
  describe("PATCH /api/v1/articles/{id}", () => {
    it.effect("applies replacements in order, each on the result of the one before", () =>
      Effect.gen(function* () {
        const { key, id, res } = yield* patchedArticle("<p>alpha and omega</p>", [
          { find: "alpha", replace: "beta" },
          { find: "beta and", replace: "gamma or" }
        ])
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.body, "<p>gamma or omega</p>")
        assert.strictEqual((yield* articleData(id, key)).body, "<p>gamma or omega</p>")
      })
    )

    it.effect("a find copied from a GET body with &amp; and attribute quotes matches", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        // PUT first, so the stored body is whatever the sanitiser serialises.
        const setup = yield* putArticle(id, key, {
          body: `<p>Fish & chips at <a href="https://shop.example.com/?a=1&b=2" title='the "best"'>the shop</a>.</p>`
        })
        assert.strictEqual(setup.status, 200)
        const body: string = (yield* articleData(id, key)).body
        const find = body.slice(body.indexOf("Fish"), body.indexOf("</a>") + 4)
        assert.include(find, "&amp;")
        assert.include(find, "&quot;")
        const res = yield* patchArticle(id, key, { replacements: [{ find, replace: "Fish and chips" }] })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.body, "<p>Fish and chips.</p>")
      })
    )

    it.effect(
      "a find that occurs twice fails with 409 replacement_conflict naming index and count, saving nothing",
      () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount({ body: "<p>red fish, red fish</p>", title: "Fish" })
          const res = yield* patchArticle(id, key, {
            title: "New fish",
            replacements: [{ find: "red", replace: "blue" }]
          })
          assertError(res, 409, "replacement_conflict")
          assert.include(res.body.message, "replacements[0]")
          assert.match(res.body.message, /\b2\b/)
          const read = yield* articleData(id, key)
          assert.strictEqual(read.body, "<p>red fish, red fish</p>")
          assert.strictEqual(read.title, "Fish")
        })
    )

    type Answer = Effect.Effect.Success<ReturnType<typeof patchArticle>>
    const refusedReplacements: ReadonlyArray<
      readonly [string, string, ReadonlyArray<object>, number, string, (res: Answer) => void]
    > = [
      [
        "a find that does not occur fails with 409 replacement_conflict giving the count 0",
        "<p>red fish</p>",
        [{ find: "green", replace: "blue" }],
        409,
        "replacement_conflict",
        (res) => {
          assert.include(res.body.message, "replacements[0]")
          assert.match(res.body.message, /\b0\b/)
        }
      ],
      [
        "all: true with no occurrence fails with 409 replacement_conflict",
        "<p>red fish</p>",
        [{ find: "green", replace: "blue", all: true }],
        409,
        "replacement_conflict",
        (res) => assert.include(res.body.message, "replacements[0]")
      ],
      [
        "an empty find is 422 validation_error",
        "<p>x</p>",
        [{ find: "", replace: "y" }],
        422,
        "validation_error",
        () => {}
      ],
      [
        "a replacement that removes a protected link is 422 protected_link_violation",
        protectedBody,
        [
          {
            find: '<a data-service-protected="backlink" href="https://partner.example.com/">partner site</a>',
            replace: "partner site"
          }
        ],
        422,
        "protected_link_violation",
        (res) => assert.deepStrictEqual(res.body.protected_links, [PARTNER])
      ],
      [
        "a replacement that introduces a <script> is 422 disallowed_html",
        "<p>Hello there.</p>",
        [{ find: "there.", replace: "there.<script>x()</script>" }],
        422,
        "disallowed_html",
        (res) => assert.match(res.body.message, /script/)
      ],
      [
        "a replacement that forges a protected link is 422 protected_link_violation",
        "<p>See our services.</p>",
        [{ find: "services", replace: '<a data-service-protected="internal" href="/services">services</a>' }],
        422,
        "protected_link_violation",
        (res) =>
          assert.deepStrictEqual(res.body.protected_links, [{ type: "internal", href: "/services", text: "services" }])
      ]
    ]
    for (const [label, body, replacements, status, error, check] of refusedReplacements) {
      it.effect(`${label}, and saves nothing`, () =>
        Effect.gen(function* () {
          const { id, res } = yield* patchedArticle(body, replacements)
          assertError(res, status, error)
          check(res)
          assert.strictEqual(yield* storedBody(id), body)
        })
      )
    }

    it.effect("all: true replaces every occurrence", () =>
      Effect.gen(function* () {
        const { res } = yield* patchedArticle("<p>red fish, red fish, red</p>", [
          { find: "red", replace: "blue", all: true }
        ])
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.body, "<p>blue fish, blue fish, blue</p>")
      })
    )

    it.effect("a failing second replacement after a valid first one saves nothing", () =>
      Effect.gen(function* () {
        const { key, id, res } = yield* patchedArticle("<p>one two three</p>", [
          { find: "one", replace: "uno" },
          { find: "missing", replace: "x" }
        ])
        assertError(res, 409, "replacement_conflict")
        assert.include(res.body.message, "replacements[1]")
        assert.strictEqual((yield* articleData(id, key)).body, "<p>one two three</p>")
        assert.deepStrictEqual(yield* revisionNumbers(id), [])
      })
    )

    it.effect("51 replacements are 422 validation_error with limit 50", () =>
      Effect.gen(function* () {
        const replacements = Array.from({ length: 51 }, () => ({ find: "x", replace: "x" }))
        const { res } = yield* patchedArticle("<p>x</p>", replacements)
        assertError(res, 422, "validation_error")
        assert.strictEqual(res.body.limit, 50)
      })
    )

    it.effect("a 501-character meta_description is 422 validation_error with limit 500", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* patchArticle(id, key, { meta_description: "m".repeat(501) })
        assertError(res, 422, "validation_error")
        assert.strictEqual(res.body.limit, 500)
      })
    )

    it.effect("an empty object is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        assertError(yield* patchArticle(id, key, {}), 422, "validation_error")
      })
    )

    it.effect("a blank title in a PATCH is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ title: "Kept" })
        assertError(yield* patchArticle(id, key, { title: "  " }), 422, "validation_error")
        assert.strictEqual((yield* articleData(id, key)).title, "Kept")
      })
    )

    it.effect("replacements that are not an array are 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        assertError(yield* patchArticle(id, key, { replacements: { find: "x" } }), 422, "validation_error")
        assertError(yield* patchArticle(id, key, { replacements: [{ find: 1 }] }), 422, "validation_error")
      })
    )

    it.effect("an empty meta_description is accepted", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ meta_description: "Old meta" })
        assert.strictEqual((yield* patchArticle(id, key, { meta_description: "" })).status, 200)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ meta_description: string | null }>`select meta_description from articles
          where id = ${id}`.pipe(Effect.orDie)
        assert.strictEqual(rows[0]!.meta_description, "")
      })
    )

    it.effect("a title-only PATCH changes the title and leaves the body alone", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Body.</p>", title: "Old" })
        const res = yield* patchArticle(id, key, { title: " New " })
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.body.data.title, "New")
        assert.strictEqual(res.body.data.body, "<p>Body.</p>")
      })
    )
  })
})
