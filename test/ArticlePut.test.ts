// @tags: engine
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { assertError, PARTNER, protectedBody, revisionNumbers, storedBody } from "./support/ArticleWrites.js"
import { articleData, putArticle, request } from "./support/Http.js"
import { articleOfNewAccount, TestServerLive } from "./support/TestServer.js"

layer(TestServerLive)("article writes", (it) => {
  describe("PUT /api/v1/articles/{id}", () => {
    it.effect("stores the body in canonical form and GET returns exactly the string PUT returned", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* putArticle(id, key, {
          body: '<P class="lead">Fresh <B>text</B></P><div>More <span style="color:red">words</span></div>'
        })
        assert.strictEqual(res.status, 200)
        const canonical: string = res.body.data.body
        // Allowed elements kept (lower-cased), their disallowed attributes dropped, other elements unwrapped.
        assert.include(canonical, "<p>Fresh <b>text</b></p>")
        assert.include(canonical, "More <span>words</span>")
        assert.notMatch(canonical, /class=|style=|<div|<P|<B/)
        assert.strictEqual((yield* articleData(id, key)).body, canonical)
        assert.strictEqual(yield* storedBody(id), canonical)
        // The canonical form is a fixed point: sending it back changes nothing.
        const again = yield* putArticle(id, key, { body: canonical })
        assert.strictEqual(again.body.data.body, canonical)
        assert.deepStrictEqual(yield* revisionNumbers(id), [1])
      })
    )

    it.effect("stores the title trimmed", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* putArticle(id, key, { title: "  A new title \t", body: "<p>Text.</p>" })
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.body.data.title, "A new title")
        assert.strictEqual((yield* articleData(id, key)).title, "A new title")
      })
    )

    it.effect("without a title keeps the current title", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ title: "Kept title" })
        const res = yield* putArticle(id, key, { body: "<p>Other text.</p>" })
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.body.data.title, "Kept title")
      })
    )

    for (const [label, title] of [
      ["empty", ""],
      ["blank", "   "]
    ] as const) {
      it.effect(`an ${label} title is 422 validation_error and changes nothing`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount({ title: "Original", body: "<p>Original.</p>" })
          const res = yield* putArticle(id, key, { title, body: "<p>Changed.</p>" })
          assertError(res, 422, "validation_error")
          const read = yield* articleData(id, key)
          assert.strictEqual(read.title, "Original")
          assert.strictEqual(read.body, "<p>Original.</p>")
        })
      )
    }

    it.effect("a 256-character title is 422 validation_error with limit 255; 255 characters are accepted", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* putArticle(id, key, { title: "t".repeat(256), body: "<p>Text.</p>" })
        assertError(res, 422, "validation_error")
        assert.strictEqual(res.body.limit, 255)
        const ok = yield* putArticle(id, key, { title: "t".repeat(255), body: "<p>Text.</p>" })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.body.data.title, "t".repeat(255))
      })
    )

    it.effect("a 2001-character reason is 422 validation_error with limit 2000", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* putArticle(id, key, { body: "<p>Text.</p>", reason: "r".repeat(2001) })
        assertError(res, 422, "validation_error")
        assert.strictEqual(res.body.limit, 2000)
      })
    )

    it.effect("a missing body is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        assertError(yield* putArticle(id, key, { title: "Only a title" }), 422, "validation_error")
      })
    )

    it.effect("a body that is not a string is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        assertError(yield* putArticle(id, key, { body: 42 }), 422, "validation_error")
        assertError(yield* putArticle(id, key, { body: ["<p>x</p>"] }), 422, "validation_error")
      })
    )

    it.effect("a malformed JSON body is 422 validation_error, never 400 or 500", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* request("PUT", `/api/v1/articles/${id}`, {
          key,
          body: '{"body": "<p>x</p>",',
          headers: { "content-type": "application/json" }
        })
        assertError(res, 422, "validation_error")
      })
    )

    it.effect("a text/plain body is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const res = yield* request("PUT", `/api/v1/articles/${id}`, {
          key,
          body: JSON.stringify({ body: "<p>Changed.</p>" }),
          headers: { "content-type": "text/plain" }
        })
        assertError(res, 422, "validation_error")
        assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
      })
    )
  })

  describe("PUT: disallowed HTML", () => {
    const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
      ["a <script> element", "<p>Hi</p><script>alert(1)</script>", /script/i],
      ["an <iframe> element", '<p>Hi</p><iframe src="https://evil.example.com/"></iframe>', /iframe/i],
      ["an onclick attribute", '<p onclick="alert(1)">Hi</p>', /onclick/i],
      ["a javascript: href", '<p><a href="javascript:alert(1)">Hi</a></p>', /javascript:/i],
      ["an entity-encoded &#106;avascript: href", '<p><a href="&#106;avascript:alert(1)">Hi</a></p>', /javascript:/i],
      ["a mixed-case JaVaScRiPt: href", '<p><a href="JaVaScRiPt:alert(1)">Hi</a></p>', /javascript:/i],
      ["a <style> element", "<style>p { color: red }</style><p>Hi</p>", /style/i]
    ]
    for (const [label, body, construct] of cases) {
      it.effect(`${label} is 422 disallowed_html naming the construct, and the body stays as it was`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount({ body: "<p>Safe original.</p>" })
          const res = yield* putArticle(id, key, { body })
          assertError(res, 422, "disallowed_html")
          assert.match(res.body.message, construct)
          assert.strictEqual((yield* articleData(id, key)).body, "<p>Safe original.</p>")
        })
      )
    }
  })

  describe("PUT: protected links", () => {
    it.effect("removing a protected link is 422 protected_link_violation listing it, and the body is untouched", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        const res = yield* putArticle(id, key, { body: "<p>Intro without the link.</p><p>Second paragraph.</p>" })
        assertError(res, 422, "protected_link_violation")
        assert.deepStrictEqual(res.body.protected_links, [PARTNER])
        assert.strictEqual((yield* articleData(id, key)).body, protectedBody)
      })
    )

    const alterations: ReadonlyArray<readonly [string, string]> = [
      [
        "its href",
        '<p>Intro with <a data-service-protected="backlink" href="https://other.example.com/">partner site</a> in it.</p>'
      ],
      [
        "its text",
        '<p>Intro with <a data-service-protected="backlink" href="https://partner.example.com/">our partner</a> in it.</p>'
      ],
      [
        "its attribute value (backlink to internal)",
        '<p>Intro with <a data-service-protected="internal" href="https://partner.example.com/">partner site</a> in it.</p>'
      ]
    ]
    for (const [what, body] of alterations) {
      it.effect(`changing a protected link's ${what} is refused with protected_link_violation`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
          const res = yield* putArticle(id, key, { body: `${body}<p>Second paragraph.</p>` })
          assertError(res, 422, "protected_link_violation")
          assert.deepInclude(res.body.protected_links, PARTNER)
          assert.strictEqual(yield* storedBody(id), protectedBody)
        })
      )
    }

    it.effect("moving a protected link to another paragraph is allowed", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        const moved =
          '<p>Intro without it.</p><p>Second paragraph with <a data-service-protected="backlink" href="https://partner.example.com/">partner site</a>.</p>'
        const res = yield* putArticle(id, key, { body: moved })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.body, moved)
        assert.deepStrictEqual(res.body.data.protected_links, [PARTNER])
      })
    )

    it.effect("forging a new protected link is refused with protected_link_violation listing the forged link", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        const forged = `${protectedBody}<p>And <a data-service-protected="internal" href="/about">about us</a>.</p>`
        const res = yield* putArticle(id, key, { body: forged })
        assertError(res, 422, "protected_link_violation")
        assert.deepStrictEqual(res.body.protected_links, [{ type: "internal", href: "/about", text: "about us" }])
        assert.strictEqual(yield* storedBody(id), protectedBody)
      })
    )
  })
})
