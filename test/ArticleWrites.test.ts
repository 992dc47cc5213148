// @tags: engine
import { request as rawRequest } from "node:http"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { articleData, patchArticle, putArticle, request } from "./support/Http.js"
import { articleOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

const assertError = (
  result: { readonly status: number; readonly body: Record<string, unknown> },
  status: number,
  error: string
) => {
  assert.strictEqual(result.status, status, JSON.stringify(result.body))
  assert.strictEqual(result.body["error"], error)
  assert.isString(result.body["message"])
}

/** The body stored in the database, read directly. */
const storedBody = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ body: string }>`select body from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!.body
  })

const revisionNumbers = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      number: number
    }>`select number from article_revisions where article_id = ${id} order by number`.pipe(Effect.orDie)
    return rows.map((row) => Number(row.number))
  })

/**
 * PUT of a JSON body of about `size` bytes sent with `Transfer-Encoding: chunked` (no Content-Length), so that the
 * server learns its size only while reading. Answers the status and body, or status -1 with the socket error.
 */
const chunkedPut = (
  baseUrl: string,
  path: string,
  key: string,
  size: number,
  options: { readonly method?: string; readonly contentType?: string } = {}
) =>
  Effect.async<{ readonly status: number; readonly body: Record<string, unknown> }>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    const headers = { "x-api-key": key, "content-type": options.contentType ?? "application/json" }
    const req = rawRequest({ hostname, port, path, method: options.method ?? "PUT", headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        resume(Effect.succeed({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      })
    })
    req.on("error", (error) => resume(Effect.succeed({ status: -1, body: { error: String(error) } })))
    const chunk = "x".repeat(Math.min(64 * 1024, size))
    let written = 0
    const write = () => {
      while (written < size) {
        written += chunk.length
        if (!req.write(chunk)) {
          req.once("drain", write)
          return
        }
      }
      req.end('</p>"}')
    }
    req.write('{"body":"<p>')
    write()
  })

const PARTNER = { type: "backlink", href: "https://partner.example.com/", text: "partner site" }
const protectedBody =
  '<p>Intro with <a data-service-protected="backlink" href="https://partner.example.com/">partner site</a> in it.</p><p>Second paragraph.</p>'

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

  describe("PATCH /api/v1/articles/{id}", () => {
    it.effect("applies replacements in order, each on the result of the one before", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>alpha and omega</p>" })
        const res = yield* patchArticle(id, key, {
          replacements: [
            { find: "alpha", replace: "beta" },
            { find: "beta and", replace: "gamma or" }
          ]
        })
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

    it.effect("a find that does not occur fails with 409 replacement_conflict giving the count 0", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>red fish</p>" })
        const res = yield* patchArticle(id, key, { replacements: [{ find: "green", replace: "blue" }] })
        assertError(res, 409, "replacement_conflict")
        assert.include(res.body.message, "replacements[0]")
        assert.match(res.body.message, /\b0\b/)
        assert.strictEqual(yield* storedBody(id), "<p>red fish</p>")
      })
    )

    it.effect("all: true replaces every occurrence", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>red fish, red fish, red</p>" })
        const res = yield* patchArticle(id, key, { replacements: [{ find: "red", replace: "blue", all: true }] })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.body, "<p>blue fish, blue fish, blue</p>")
      })
    )

    it.effect("all: true with no occurrence fails with 409 replacement_conflict", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>red fish</p>" })
        const res = yield* patchArticle(id, key, { replacements: [{ find: "green", replace: "blue", all: true }] })
        assertError(res, 409, "replacement_conflict")
        assert.include(res.body.message, "replacements[0]")
        assert.strictEqual(yield* storedBody(id), "<p>red fish</p>")
      })
    )

    it.effect("a failing second replacement after a valid first one saves nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>one two three</p>" })
        const res = yield* patchArticle(id, key, {
          replacements: [
            { find: "one", replace: "uno" },
            { find: "missing", replace: "x" }
          ]
        })
        assertError(res, 409, "replacement_conflict")
        assert.include(res.body.message, "replacements[1]")
        assert.strictEqual((yield* articleData(id, key)).body, "<p>one two three</p>")
        assert.deepStrictEqual(yield* revisionNumbers(id), [])
      })
    )

    it.effect("51 replacements are 422 validation_error with limit 50", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>x</p>" })
        const replacements = Array.from({ length: 51 }, () => ({ find: "x", replace: "x" }))
        const res = yield* patchArticle(id, key, { replacements })
        assertError(res, 422, "validation_error")
        assert.strictEqual(res.body.limit, 50)
      })
    )

    it.effect("an empty find is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>x</p>" })
        assertError(
          yield* patchArticle(id, key, { replacements: [{ find: "", replace: "y" }] }),
          422,
          "validation_error"
        )
        assert.strictEqual(yield* storedBody(id), "<p>x</p>")
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

    it.effect("a replacement that removes a protected link is 422 protected_link_violation and saves nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: protectedBody })
        const res = yield* patchArticle(id, key, {
          replacements: [
            {
              find: '<a data-service-protected="backlink" href="https://partner.example.com/">partner site</a>',
              replace: "partner site"
            }
          ]
        })
        assertError(res, 422, "protected_link_violation")
        assert.deepStrictEqual(res.body.protected_links, [PARTNER])
        assert.strictEqual(yield* storedBody(id), protectedBody)
      })
    )

    it.effect("a replacement that introduces a <script> is 422 disallowed_html and saves nothing", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Hello there.</p>" })
        const res = yield* patchArticle(id, key, {
          replacements: [{ find: "there.", replace: "there.<script>x()</script>" }]
        })
        assertError(res, 422, "disallowed_html")
        assert.match(res.body.message, /script/)
        assert.strictEqual(yield* storedBody(id), "<p>Hello there.</p>")
      })
    )

    it.effect("a replacement that forges a protected link is 422 protected_link_violation", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: "<p>See our services.</p>" })
        const res = yield* patchArticle(id, key, {
          replacements: [
            { find: "services", replace: '<a data-service-protected="internal" href="/services">services</a>' }
          ]
        })
        assertError(res, 422, "protected_link_violation")
        assert.deepStrictEqual(res.body.protected_links, [{ type: "internal", href: "/services", text: "services" }])
        assert.strictEqual(yield* storedBody(id), "<p>See our services.</p>")
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

  describe("tenancy and authentication", () => {
    it.effect("PUT and PATCH on another account's article are 404 not_found and change nothing", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { id } = yield* articleOfNewAccount({ body: "<p>Theirs.</p>" })
        const { key: otherKey } = yield* app.makeAccount()
        assertError(yield* putArticle(id, otherKey, { body: "<p>Mine.</p>" }), 404, "not_found")
        assertError(
          yield* patchArticle(id, otherKey, { replacements: [{ find: "Theirs", replace: "Mine" }] }),
          404,
          "not_found"
        )
        assert.strictEqual(yield* storedBody(id), "<p>Theirs.</p>")
      })
    )

    it.effect("an admin key writing another account's article gets 404 not_found too", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { id } = yield* articleOfNewAccount({ body: "<p>Theirs.</p>" })
        const { key: adminKey } = yield* app.makeAccount({ admin: true })
        // The admin key can read it…
        assert.strictEqual((yield* request("GET", `/api/v1/articles/${id}`, { key: adminKey })).status, 200)
        // …but not write it.
        assertError(yield* putArticle(id, adminKey, { body: "<p>Admin.</p>" }), 404, "not_found")
        assertError(yield* patchArticle(id, adminKey, { title: "Admin" }), 404, "not_found")
        assert.strictEqual(yield* storedBody(id), "<p>Theirs.</p>")
      })
    )

    for (const badId of ["abc", "0", "-1", "1.5"]) {
      it.effect(`PUT and PATCH on article id ${badId} are 404 not_found`, () =>
        Effect.gen(function* () {
          const { key } = yield* articleOfNewAccount()
          const path = `/api/v1/articles/${badId}`
          assertError(yield* request("PUT", path, { key, json: { body: "<p>x</p>" } }), 404, "not_found")
          assertError(yield* request("PATCH", path, { key, json: { title: "x" } }), 404, "not_found")
        })
      )
    }

    it.effect("PUT and PATCH without a key are 401 unauthorized", () =>
      Effect.gen(function* () {
        const { id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const path = `/api/v1/articles/${id}`
        assertError(yield* request("PUT", path, { json: { body: "<p>x</p>" } }), 401, "unauthorized")
        assertError(yield* request("PATCH", path, { json: { title: "x" } }), 401, "unauthorized")
        assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
      })
    )
  })

  describe("request size", () => {
    it.effect("a JSON body over 5 MiB is answered with 413 payload_too_large and a limit", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const json = JSON.stringify({ body: `<p>${"x".repeat(5 * 1024 * 1024)}</p>` })
        const res = yield* Effect.tryPromise(() =>
          fetch(`${app.baseUrl}/api/v1/articles/${id}`, {
            method: "PUT",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: json
          }).then(async (r) => ({ status: r.status, body: await r.json() }))
        ).pipe(Effect.catchAll((error) => Effect.succeed({ status: -1, body: { error: String(error.cause) } })))
        assertError(res, 413, "payload_too_large")
        assert.isNumber(res.body.limit)
        assert.isAtMost(res.body.limit, 5 * 1024 * 1024)
        assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
      })
    )
  })

  describe("request size (streamed)", () => {
    // Without a Content-Length the cap can only be applied while reading: the server stops keeping the body at the
    // cap and answers 413, reading (and dropping) what the client still sends so that the answer reaches it.
    for (const size of [5 * 1024 * 1024 + 1024, 20 * 1024 * 1024]) {
      it.effect(
        `a JSON body of ${size} bytes sent chunked, without Content-Length, is 413 payload_too_large and nothing is saved`,
        () =>
          Effect.gen(function* () {
            const app = yield* TestApp
            const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
            const res = yield* chunkedPut(app.baseUrl, `/api/v1/articles/${id}`, key, size)
            assert.strictEqual(res.status, 413, JSON.stringify(res.body))
            assert.strictEqual(res.body["error"], "payload_too_large")
            assert.strictEqual(res.body["limit"], 5 * 1024 * 1024)
            assert.strictEqual(yield* storedBody(id), "<p>Original.</p>")
          })
      )
    }

    // The cap is applied as the request comes in from the network, whatever route it is for.
    for (const [method, path, contentType, cap] of [
      ["POST", "/signin", "application/x-www-form-urlencoded", 5 * 1024 * 1024],
      ["POST", "/mcp", "application/json", 16 * 1024 * 1024]
    ] as const) {
      it.effect(`a body over its cap sent chunked to ${method} ${path} (not an API route) is 413 too`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const { key } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
          const res = yield* chunkedPut(app.baseUrl, path, key, cap + 1024, { method, contentType })
          assert.strictEqual(res.status, 413, JSON.stringify(res.body))
          assert.strictEqual(res.body["error"], "payload_too_large")
          assert.strictEqual(res.body["limit"], cap)
        })
      )
    }

    it.effect("a JSON body within the cap sent chunked is read as any other", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount({ body: "<p>Original.</p>" })
        const res = yield* chunkedPut(app.baseUrl, `/api/v1/articles/${id}`, key, 2000)
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(yield* storedBody(id), `<p>${"x".repeat(2000)}</p>`)
      })
    )
  })

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
