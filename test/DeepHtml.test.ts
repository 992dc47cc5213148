import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "./support/Http.js"
import { articleOfNewAccount, TestServerLive } from "./support/TestServer.js"

const ORIGINAL = "<p>Original text.</p>"

/** A request to article `id` with an API key and a JSON body. */
const send = (method: "GET" | "PUT" | "PATCH", id: number, key: string, json?: unknown) =>
  request(method, `/api/v1/articles/${id}`, { key, json })

const nested = (depth: number, open: string, inner = "x") => open.repeat(depth) + inner

const assertTooDeep = (result: { readonly status: number; readonly body: Record<string, unknown> }) => {
  assert.strictEqual(result.status, 422, JSON.stringify(result.body).slice(0, 300))
  assert.deepStrictEqual(result.body, {
    error: "validation_error",
    message: "body: HTML is nested deeper than 256 elements.",
    limit: 256
  })
}

layer(TestServerLive)("HTML nested deeper than 256 elements", (it) => {
  describe("PUT /api/v1/articles/{id}", () => {
    for (const [name, open] of [
      ["<b>", "<b>"],
      ["<div>", "<div>"],
      ["<ul>", "<ul>"],
      ["<table><tr><td>", "<table><tr><td>"]
    ] as const) {
      it.effect(`a body of 2,000 nested ${name} is 422 validation_error and saves nothing`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
          assertTooDeep(yield* send("PUT", id, key, { body: nested(2_000, open) }))
          const after = yield* send("GET", id, key)
          assert.strictEqual(after.body.data.body, ORIGINAL)
        })
      )
    }

    it.effect("a body 256 elements deep is saved; 257 deep is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const deepest = `${"<b>".repeat(256)}x${"</b>".repeat(256)}`
        const saved = yield* send("PUT", id, key, { body: deepest })
        assert.strictEqual(saved.status, 200)
        assert.strictEqual(saved.body.data.body, deepest)
        assertTooDeep(yield* send("PUT", id, key, { body: `<i>${deepest}</i>` }))
      })
    )
  })

  describe("PATCH /api/v1/articles/{id}", () => {
    it.effect("replacements that nest the body deeper than 256 elements are 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount({ body: ORIGINAL })
        const result = yield* send("PATCH", id, key, {
          replacements: [{ find: "Original", replace: nested(2_000, "<div>") }]
        })
        assertTooDeep(result)
        const after = yield* send("GET", id, key)
        assert.strictEqual(after.body.data.body, ORIGINAL)
      })
    )
  })
})
