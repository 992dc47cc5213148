import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SERVED_METHODS } from "../src/Server/Unrouted.js"
import { type Answer, request } from "./support/Http.js"
import { TestServerLive } from "./support/TestServer.js"
import { assertPageHeaders } from "./support/WebPages.js"

/** What a browser sends, and what a plain client sends (no Accept at all). */
const ACCEPTS = [{ accept: "text/html,application/xhtml+xml,*/*;q=0.8" }, {}] as const

/** Each way of asking for `path` with `method`: its answer, and what the request was (for the assertions' messages). */
const answersTo = (method: string, path: string) =>
  Effect.forEach(ACCEPTS, (headers) =>
    Effect.map(request(method, path, { headers }), (answer) => ({
      answer,
      asked: `${method} ${path} (${"accept" in headers ? "a browser" : "no Accept"})`
    }))
  )

/** An HTML page with the pages' headers, its status and its request id, with a way back to the websites and sign-in. */
const assertPage = (answer: Answer, status: number, asked: string) => {
  assert.strictEqual(answer.status, status, `${asked}: ${answer.text}`)
  assertPageHeaders(answer)
  assert.match(answer.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/, asked)
  assert.match(answer.text, /^<!doctype html>/, asked)
  assert.include(answer.text, '<a href="/sites">', asked)
  assert.include(answer.text, '<a href="/signin">', asked)
  assert.include(answer.text, 'role="alert"', asked)
}

layer(TestServerLive)("addresses no route of the pages takes answer an HTML page", (it) => {
  describe("under the pages", () => {
    it.effect("an unknown address is a 404 page, whatever Accept says", () =>
      Effect.gen(function* () {
        for (const path of ["/nope", "/sites/1/nope", "/articles/1/activity/x", "/nothing;x", "/favicon.png"]) {
          for (const { answer, asked } of yield* answersTo("GET", path)) {
            assertPage(answer, 404, asked)
            assert.include(answer.text, "<h1>Page not found</h1>", asked)
          }
        }
      })
    )

    it.effect("a form's address opened with GET is a 405 page saying it receives a form, with Allow: POST", () =>
      Effect.gen(function* () {
        for (const path of ["/signout", "/articles/1/edit", "/articles/1/preview", "/connection/keys"]) {
          for (const { answer, asked } of yield* answersTo("GET", path)) {
            assertPage(answer, 405, asked)
            assert.strictEqual(answer.headers.get("allow"), "POST", asked)
            assert.include(answer.text, "receives a form", asked)
          }
        }
      })
    )

    it.effect("a page's address with a method it does not take is a 405 page naming the ones it takes", () =>
      Effect.gen(function* () {
        for (const method of ["POST", "DELETE", "PUT"]) {
          for (const { answer, asked } of yield* answersTo(method, "/sites")) {
            assertPage(answer, 405, asked)
            assert.strictEqual(answer.headers.get("allow"), "GET, HEAD", asked)
            assert.include(answer.text, `does not take ${method}; it takes GET, HEAD`, asked)
          }
        }
      })
    )

    it.effect("a method the service takes nowhere is a 405 page too, with every method it takes in Allow", () =>
      Effect.gen(function* () {
        for (const { answer, asked } of yield* answersTo("PROPFIND", "/sites")) {
          assertPage(answer, 405, asked)
          assert.strictEqual(answer.headers.get("allow"), SERVED_METHODS.join(", "), asked)
        }
      })
    )
  })

  describe("the API, MCP, OAuth and discovery addresses keep their JSON", () => {
    it.effect("an unknown or wrong-method address there is the JSON 404 not_found, even to a browser", () =>
      Effect.gen(function* () {
        for (const [method, path] of [
          ["GET", "/api/v1/nope"],
          ["GET", "/API/V1/sites"],
          ["GET", "/api/v1/sites;x"],
          ["POST", "/api/v1/openapi.json"],
          ["GET", "/mcp/tools"],
          ["PUT", "/mcp"],
          ["GET", "/.well-known/nope"],
          ["GET", "/token"],
          ["GET", "/register"]
        ] as const) {
          for (const { answer, asked } of yield* answersTo(method, path)) {
            assert.strictEqual(answer.status, 404, `${asked}: ${answer.text}`)
            assert.match(answer.headers.get("content-type") ?? "", /^application\/json/, asked)
            assert.strictEqual(answer.body.error, "not_found", asked)
          }
        }
        for (const { answer, asked } of yield* answersTo("PROPFIND", "/api/v1/sites")) {
          assert.strictEqual(answer.status, 405, asked)
          assert.strictEqual(answer.body.error, "method_not_allowed", asked)
        }
      })
    )
  })
})
