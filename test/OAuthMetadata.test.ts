// @tags: runtime
import http from "node:http"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Browser } from "./support/McpClient.js"
import { REDIRECT_URI } from "./support/McpClient.js"
import { assertOAuthError, context, json, preflightPost } from "./support/OAuthFlow.js"
import { TestServerLive } from "./support/TestServer.js"

/** A registration whose body is this text, sent as JSON. */
const registerText = (browser: Browser, body: string) =>
  browser.send("/register", { method: "POST", headers: { "content-type": "application/json" }, body })

/** Redirect URIs a registration may not name: schemes that run or read, non-loopback http, fragments, non-URIs. */
const REFUSED_REDIRECT_URIS = [
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "http://example.com/callback",
  "http://127.0.0.1.example.com/cb",
  "https://example.com/callback#fragment",
  "not a uri"
]

layer(TestServerLive)("OAuth authorization server", (it) => {
  describe("metadata", () => {
    it.effect("protected-resource metadata names <base>/mcp and the service as its authorization server", () =>
      Effect.gen(function* () {
        const { browser, base } = yield* context
        for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
          const reply = yield* browser.get(path)
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          const body = json(reply)
          assert.strictEqual(body.resource, `${base}/mcp`)
          assert.deepStrictEqual(body.authorization_servers, [base])
          assert.deepStrictEqual(body.scopes_supported, ["content:read", "content:write"])
          assert.deepStrictEqual(body.bearer_methods_supported, ["header"])
        }
      })
    )

    it.effect(
      "authorization-server metadata: issuer is the base URL without a trailing slash, endpoints under it",
      () =>
        Effect.gen(function* () {
          const { browser, base } = yield* context
          const reply = yield* browser.get("/.well-known/oauth-authorization-server")
          assert.strictEqual(reply.status, 200)
          const body = json(reply)
          assert.strictEqual(body.issuer, base)
          assert.isFalse(body.issuer.endsWith("/"))
          assert.strictEqual(body.authorization_endpoint, `${base}/authorize`)
          assert.strictEqual(body.token_endpoint, `${base}/token`)
          assert.strictEqual(body.registration_endpoint, `${base}/register`)
          assert.deepStrictEqual(body.code_challenge_methods_supported, ["S256"])
          assert.deepStrictEqual(body.response_types_supported, ["code"])
          assert.deepStrictEqual(body.grant_types_supported, ["authorization_code", "refresh_token"])
          assert.include(body.token_endpoint_auth_methods_supported, "none")
          assert.deepStrictEqual(body.scopes_supported, ["content:read", "content:write"])
          assert.strictEqual(body.authorization_response_iss_parameter_supported, true)
        })
    )

    it.effect("the documents take their URLs from the configured base URL, not from the Host header", () =>
      Effect.gen(function* () {
        const { app, base } = yield* context
        // fetch does not let a caller set Host; node:http does.
        const body = yield* Effect.async<string>((resume) => {
          const request = http.get(
            `${app.baseUrl}/.well-known/oauth-authorization-server`,
            { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } },
            (res) => {
              let text = ""
              res.on("data", (chunk) => {
                text += chunk
              })
              res.on("end", () => resume(Effect.succeed(text)))
            }
          )
          request.on("error", (error) => resume(Effect.die(error)))
        })
        assert.strictEqual(JSON.parse(body).issuer, base)
        assert.notInclude(body, "evil.example")
      })
    )

    it.effect("CORS preflights on the documents, /register and /token answer 204 with the allowed headers", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        for (const path of [
          "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-protected-resource/mcp",
          "/register",
          "/token"
        ]) {
          const reply = yield* preflightPost(browser, path)
          assert.strictEqual(reply.status, 204, path)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          assert.include(reply.headers.get("access-control-allow-methods") ?? "", "POST")
          assert.include(reply.headers.get("access-control-allow-headers") ?? "", "Mcp-Protocol-Version")
          assert.include(reply.headers.get("access-control-expose-headers") ?? "", "WWW-Authenticate")
        }
      })
    )
  })

  describe("dynamic client registration", () => {
    it.effect(
      "accepts https, loopback http with a port and private-use schemes, and answers 201 with the metadata",
      () =>
        Effect.gen(function* () {
          const { browser } = yield* context
          const uris = [
            "https://claude.ai/api/mcp/auth_callback",
            "http://127.0.0.1:6274/oauth/callback",
            "http://localhost:33418/callback",
            "http://[::1]:8080/cb",
            "cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback",
            "cursor://callback",
            "vscode://vscode.github-authentication/did-authenticate"
          ]
          const reply = yield* browser.postJson("/register", {
            client_name: "Some Assistant",
            redirect_uris: uris,
            token_endpoint_auth_method: "none"
          })
          assert.strictEqual(reply.status, 201, reply.text)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          const body = json(reply)
          assert.match(body.client_id, /^cbs_client_/)
          assert.strictEqual(body.client_name, "Some Assistant")
          assert.deepStrictEqual(body.redirect_uris, uris)
          assert.deepStrictEqual(body.grant_types, ["authorization_code", "refresh_token"])
          assert.deepStrictEqual(body.response_types, ["code"])
          assert.strictEqual(body.token_endpoint_auth_method, "none")
          assert.isNumber(body.client_id_issued_at)
          assert.isUndefined(body.client_secret)
        })
    )

    it.effect("refuses javascript:, data:, file:, non-loopback http and fragments with 400 invalid_redirect_uri", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        for (const uri of REFUSED_REDIRECT_URIS) {
          const reply = yield* browser.postJson("/register", {
            redirect_uris: [uri],
            token_endpoint_auth_method: "none"
          })
          assertOAuthError(reply, 400, "invalid_redirect_uri")
        }
        const none = yield* browser.postJson("/register", { client_name: "x", token_endpoint_auth_method: "none" })
        assertOAuthError(none, 400, "invalid_redirect_uri")
      })
    )

    it.effect("refuses other bad metadata and unreadable bodies with 400 invalid_client_metadata JSON", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const cases: ReadonlyArray<unknown> = [
          { redirect_uris: [REDIRECT_URI], grant_types: ["client_credentials"] },
          { redirect_uris: [REDIRECT_URI], response_types: ["token"] },
          { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "private_key_jwt" },
          { redirect_uris: [REDIRECT_URI], client_name: 42 },
          [REDIRECT_URI]
        ]
        for (const body of cases)
          assertOAuthError(yield* browser.postJson("/register", body), 400, "invalid_client_metadata")
        assertOAuthError(yield* registerText(browser, "{not json"), 400, "invalid_client_metadata")
      })
    )
    it.effect("metadata nested 100,000 deep in any field is 400 invalid_client_metadata, never a 500", () =>
      Effect.gen(function* () {
        const { browser } = yield* context
        const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
        for (const field of ["client_name", "grant_types", "response_types", "token_endpoint_auth_method"]) {
          const body = `{"redirect_uris":[${JSON.stringify(REDIRECT_URI)}],${JSON.stringify(field)}:${deep}}`
          assertOAuthError(yield* registerText(browser, body), 400, "invalid_client_metadata")
        }
        assertOAuthError(yield* registerText(browser, `{"redirect_uris":${deep}}`), 400, "invalid_redirect_uri")
      })
    )
  })
})
