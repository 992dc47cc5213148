// @tags: runtime
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "./support/Http.js"
import { siteOfNewAccount, TestApp, TestServerLive } from "./support/TestServer.js"

/** A request with an API key; status and JSON body. */
const send = (path: string, key: string, init: { method: string; contentType?: string; body?: BodyInit }) =>
  request(init.method, path, {
    key,
    body: init.body,
    headers: init.contentType === undefined ? {} : { "content-type": init.contentType }
  })

const article = Effect.gen(function* () {
  const app = yield* TestApp
  const { key, siteId } = yield* siteOfNewAccount
  const id = yield* app.makeArticle(siteId, { title: "Kept", body: "<p>Kept text.</p>" })
  return { key, id, siteId }
})

/** A PATCH of a new article whose body is `body` as written, with `contentType` if any: the article and the answer. */
const patchAs = (contentType: string | undefined, body: string) =>
  Effect.gen(function* () {
    const { key, id } = yield* article
    const result = yield* send(`/api/v1/articles/${id}`, key, {
      method: "PATCH",
      ...(contentType === undefined ? {} : { contentType }),
      body
    })
    return { key, id, result }
  })

/** A JSON body whose replacements are arrays nested `depth` deep. */
const nestedReplacements = (depth: number) => `{"replacements":${"[".repeat(depth)}${"]".repeat(depth)}}`

layer(TestServerLive)("hostile input is a clear 4xx, never a 500", (it) => {
  describe("content types", () => {
    for (const [name, contentType] of [
      ["no Content-Type", undefined],
      ["text/plain", "text/plain"],
      ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
      ["multipart/form-data on an endpoint that takes only JSON", "multipart/form-data; boundary=x"]
    ] as const) {
      it.effect(`a PATCH with ${name} is 422 naming the content type the endpoint takes, and saves nothing`, () =>
        Effect.gen(function* () {
          const { key, id, result } = yield* patchAs(contentType, JSON.stringify({ title: "Changed" }))
          assert.strictEqual(result.status, 422, JSON.stringify(result.body))
          assert.strictEqual(result.body.error, "validation_error")
          assert.include(result.body.message, "application/json")
          assert.notInclude(result.body.message, "Send at least one")
          const read = yield* send(`/api/v1/articles/${id}`, key, { method: "GET" })
          assert.strictEqual(read.body.data.title, "Kept")
        })
      )
    }

    it.effect("application/json with a charset is accepted", () =>
      Effect.gen(function* () {
        const { result } = yield* patchAs("application/json; charset=utf-8", JSON.stringify({ title: "Changed" }))
        assert.strictEqual(result.status, 200)
      })
    )

    it.effect("multipart/form-data without a boundary is 422 at once on the featured-image endpoint", () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const result = yield* send(`/api/v1/articles/${id}/featured-image`, key, {
          method: "POST",
          contentType: "multipart/form-data",
          body: "--x\r\n"
        })
        assert.strictEqual(result.status, 422)
        assert.include(result.body.message, "boundary")
      })
    )
  })

  describe("multipart bodies", () => {
    for (const [name, body] of [
      ["an empty multipart body", ""],
      [
        "a multipart body cut off inside a part",
        '--xyz\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://a.example/x.png'
      ],
      ["a multipart body with only its closing boundary", "--xyz--\r\n"],
      ["a multipart body cut off in a part's headers", "--xyz\r\nContent-Disposition: form-da"]
    ] as const) {
      it.effect(`${name} is 422 at once, not a wait for the request timeout`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* article
          const result = yield* send(`/api/v1/articles/${id}/featured-image`, key, {
            method: "POST",
            contentType: "multipart/form-data; boundary=xyz",
            body
          })
          assert.strictEqual(result.status, 422, JSON.stringify(result.body))
          assert.strictEqual(result.body.error, "validation_error")
        })
      )
    }
  })

  describe("multipart bodies the parser could not read", () => {
    const form = '--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://img.example/a.png\r\n--x--\r\n'
    for (const contentType of [
      "multipart/form-data; boundary=",
      "multipart/form-data; boundary=a/b",
      "multipart/form-data; boundary=x;",
      "multipart/form-data;\tboundary=x"
    ]) {
      it.effect(`${JSON.stringify(contentType)} is answered at once, never a 500`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* article
          const result = yield* send(`/api/v1/articles/${id}/featured-image`, key, {
            method: "POST",
            contentType,
            body: form
          })
          assert.oneOf(result.status, [200, 422], JSON.stringify(result.body))
        })
      )
    }

    // Read unread, such a part stalled the body until the request timed out: a 500, not a 422.
    it.effect("a nameless file part over 16 KiB in a complete body is 422 at once; an empty one is no file", () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const part = (filename: string, content: string) =>
          `--x\r\nContent-Disposition: form-data; name="image"; filename="${filename}"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n${content}\r\n`
        const url = '--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://img.example/a.png\r\n'
        const post = (body: string) =>
          send(`/api/v1/articles/${id}/featured-image`, key, {
            method: "POST",
            contentType: "multipart/form-data; boundary=x",
            body
          })
        const nameless = yield* post(`${part("", "a".repeat(64 * 1024))}${url}--x--\r\n`)
        assert.strictEqual(nameless.status, 422, JSON.stringify(nameless.body))
        assert.strictEqual(nameless.body.error, "validation_error")
        const empty = yield* post(`${part("", "")}${url}--x--\r\n`)
        assert.strictEqual(empty.status, 200, JSON.stringify(empty.body))
      })
    )

    it.effect("a multipart body of thousands of tiny parts is 422 at once", () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const parts = Array.from(
          { length: 30_000 },
          (_, i) => `--x\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\na\r\n`
        )
        const result = yield* send(`/api/v1/articles/${id}/featured-image`, key, {
          method: "POST",
          contentType: "multipart/form-data; boundary=x",
          body: `${parts.join("")}--x--\r\n`
        })
        assert.strictEqual(result.status, 422, JSON.stringify(result.body))
      })
    )
  })

  describe("nesting", () => {
    it.effect("JSON nested 100,000 deep is 422 validation_error with limit 64", () =>
      Effect.gen(function* () {
        const { result } = yield* patchAs("application/json", nestedReplacements(100_000))
        assert.strictEqual(result.status, 422)
        assert.strictEqual(result.body.limit, 64)
      })
    )

    it.effect("JSON nested 64 deep is judged on its fields as usual", () =>
      Effect.gen(function* () {
        const { result } = yield* patchAs("application/json", nestedReplacements(63))
        assert.strictEqual(result.status, 422)
        assert.notStrictEqual(result.body.limit, 64)
      })
    )
  })

  describe("NUL (U+0000) in text", () => {
    for (const [field, value] of [
      ["title", { title: "a\u0000b" }],
      ["meta_description", { meta_description: "a\u0000b" }],
      ["reason", { title: "New", reason: "a\u0000b" }],
      ["replacements.0.find", { replacements: [{ find: "a\u0000b" }] }],
      ["replacements.0.replace", { replacements: [{ find: "Kept", replace: "a\u0000b" }] }]
    ] as const) {
      it.effect(`a NUL in ${field} is 422 naming ${field}`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* article
          const result = yield* request("PATCH", `/api/v1/articles/${id}`, { key, json: value })
          assert.strictEqual(result.status, 422, JSON.stringify(result.body))
          assert.include(result.body.message, field)
        })
      )
    }

    it.effect("a NUL in a PUT body and in an image url are 422 naming the field", () =>
      Effect.gen(function* () {
        const { key, id } = yield* article
        const put = yield* request("PUT", `/api/v1/articles/${id}`, { key, json: { body: "<p>a\u0000b</p>" } })
        assert.strictEqual(put.status, 422)
        assert.include(put.body.message, "body")
        const image = yield* request("POST", `/api/v1/articles/${id}/featured-image`, {
          key,
          json: { url: "https://img.example/a\u0000.png" }
        })
        assert.strictEqual(image.status, 422)
        assert.include(image.body.message, "url")
        const form = new FormData()
        form.append("url", "https://img.example/a\u0000.png")
        const res = yield* send(`/api/v1/articles/${id}/featured-image`, key, { method: "POST", body: form })
        assert.strictEqual(res.status, 422)
      })
    )

    it.effect("a NUL in the admin filters of the sites list is 422, not 500", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key } = yield* app.makeAccount({ admin: true })
        for (const query of ["account=a%00b", "website=a%00b"]) {
          const result = yield* send(`/api/v1/sites?${query}`, key, { method: "GET" })
          assert.strictEqual(result.status, 422, query)
        }
      })
    )
  })
})
