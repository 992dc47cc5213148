// @tags: runtime
import { randomBytes } from "node:crypto"
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, TestClock } from "effect"
import { cbs } from "./support/Cbs.js"
import { makeBrowser, postRpc, signInWithSdk, toolsList } from "./support/McpClient.js"
import { serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"
import { toolNames } from "./support/Tools.js"
import { PASSWORD } from "./support/WebPages.js"

const APP = "https://app.example"
const OTHER = "https://other.example"
/**
 * The test's "now": the server runs on the test clock, which stands still. Each test starts at least a minute after
 * the previous one, so that no two tests share a request-limit window.
 */
let lastStart = 0
const startClock = Effect.suspend(() => {
  lastStart = Math.max(Date.now(), lastStart + 61_000)
  return TestClock.setTime(lastStart)
})

/** The preflight a browser sends before a page of `origin` POSTs to `url` with a token. */
const preflight = (url: string, origin: string, method = "POST", headers = "authorization,content-type") =>
  Effect.promise(() =>
    fetch(url, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers }
    })
  )

/** The CORS headers of an answer, by name (those it has). */
const corsOf = (headers: Headers) =>
  Object.fromEntries([...headers].filter(([name]) => name.startsWith("access-control-") || name === "vary"))

/** A user of the service at `base`, signed in for MCP there through the SDK: the access token. */
const tokenAt = (base: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const email = `origins-${randomBytes(4).toString("hex")}@example.com`
    yield* app.makeAccount({ email, password: PASSWORD })
    const { accessToken } = yield* signInWithSdk({
      mcpUrl: `${base}/mcp`,
      browser: makeBrowser(base),
      user: { email, password: PASSWORD }
    })
    return accessToken
  })

/** The service with MCP_ALLOWED_ORIGINS naming APP. */
const listingApp = serverWithSettings({ MCP_ALLOWED_ORIGINS: ` ${APP}/ , http://localhost:5173` })

layer(TestServerLive)("web origins allowed to call /mcp (MCP_ALLOWED_ORIGINS)", (it) => {
  describe("a listed origin", () => {
    it.scoped("its preflight is 204 and names it, the method and the headers it may send; another's is 403", () =>
      Effect.gen(function* () {
        yield* startClock
        const base = yield* listingApp
        const granted = yield* preflight(`${base}/mcp`, APP, "POST", "authorization,content-type,mcp-protocol-version")
        assert.strictEqual(granted.status, 204)
        assert.deepStrictEqual(corsOf(granted.headers), {
          "access-control-allow-origin": APP,
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": "Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Method, Mcp-Name",
          "access-control-expose-headers":
            "WWW-Authenticate, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, X-Request-Id",
          "access-control-max-age": "86400",
          vary: "Origin"
        })
        // The second listed origin, written as a browser sends it.
        const local = yield* preflight(`${base}/mcp`, "http://localhost:5173")
        assert.strictEqual(local.headers.get("access-control-allow-origin"), "http://localhost:5173")
        for (const origin of [OTHER, `${APP}:8443`, "http://app.example", "null"]) {
          const refused = yield* preflight(`${base}/mcp`, origin)
          assert.strictEqual(refused.status, 403, origin)
          assert.deepStrictEqual(corsOf(refused.headers), { vary: "Origin" }, origin)
        }
      })
    )

    it.scoped("its POST with a bearer token is answered, readable by it alone; another origin's is refused", () =>
      Effect.gen(function* () {
        yield* startClock
        const base = yield* listingApp
        const token = yield* tokenAt(base)
        const answered = yield* postRpc(`${base}/mcp`, token, toolsList, { origin: APP })
        assert.strictEqual(answered.status, 200, answered.text)
        assert.lengthOf(JSON.parse(answered.text).result.tools, toolNames.length)
        assert.strictEqual(answered.headers.get("access-control-allow-origin"), APP)
        assert.strictEqual(answered.headers.get("vary"), "Origin")
        // What a client reads is exposed, and there to read.
        const exposed = (answered.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(", ")
        for (const name of ["ratelimit-remaining", "x-request-id"]) {
          assert.include(exposed, name)
          assert.isNotNull(answered.headers.get(name), name)
        }
        // Without a token: the challenge the client starts its sign-in from, readable by the listed origin.
        const challenged = yield* postRpc(`${base}/mcp`, undefined, toolsList, { origin: APP })
        assert.strictEqual(challenged.status, 401)
        assert.strictEqual(challenged.headers.get("access-control-allow-origin"), APP)
        assert.include(challenged.headers.get("access-control-expose-headers") ?? "", "WWW-Authenticate")
        assert.include(challenged.headers.get("www-authenticate") ?? "", "resource_metadata=")

        const refused = yield* postRpc(`${base}/mcp`, token, toolsList, { origin: OTHER })
        assert.strictEqual(refused.status, 403)
        assert.include(refused.text, `Invalid Origin header: ${OTHER}`)
        assert.isNull(refused.headers.get("access-control-allow-origin"))
      })
    )

    it.scoped(
      "the OAuth endpoints grant it too, each endpoint its own methods and headers; another origin nothing",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const base = yield* listingApp
          const expected: ReadonlyArray<readonly [string, string, string, string, string | null]> = [
            ["/.well-known/oauth-protected-resource/mcp", "GET", "GET", "Mcp-Protocol-Version", null],
            ["/.well-known/oauth-authorization-server", "GET", "GET", "Mcp-Protocol-Version", null],
            ["/register", "POST", "POST", "Content-Type", null],
            ["/token", "POST", "POST", "Authorization, Content-Type", "WWW-Authenticate"],
            ["/revoke", "POST", "POST", "Authorization, Content-Type", "WWW-Authenticate"]
          ]
          for (const [path, method, methods, headers, exposed] of expected) {
            const granted = yield* preflight(`${base}${path}`, APP, method)
            assert.strictEqual(granted.status, 204, path)
            assert.strictEqual(granted.headers.get("access-control-allow-origin"), APP, path)
            assert.strictEqual(granted.headers.get("access-control-allow-methods"), methods, path)
            assert.strictEqual(granted.headers.get("access-control-allow-headers"), headers, path)
            assert.strictEqual(granted.headers.get("access-control-expose-headers"), exposed, path)
            assert.strictEqual(granted.headers.get("vary"), "Origin", path)
            const refused = yield* preflight(`${base}${path}`, OTHER, method)
            assert.strictEqual(refused.status, 403, path)
            assert.isNull(refused.headers.get("access-control-allow-origin"), path)
          }
          const document = (origin: string) =>
            Effect.promise(() => fetch(`${base}/.well-known/oauth-authorization-server`, { headers: { origin } }))
          assert.strictEqual((yield* document(APP)).headers.get("access-control-allow-origin"), APP)
          const unread = yield* document(OTHER)
          assert.strictEqual(unread.status, 200)
          assert.isNull(unread.headers.get("access-control-allow-origin"))
        })
    )
  })

  describe("without the setting", () => {
    it.scoped("/mcp grants no other origin (preflight 403, POST 403), and the OAuth endpoints answer any origin", () =>
      Effect.gen(function* () {
        yield* startClock
        const app = yield* TestApp
        const token = yield* tokenAt(app.baseUrl)
        const refusedPreflight = yield* preflight(`${app.baseUrl}/mcp`, APP)
        assert.strictEqual(refusedPreflight.status, 403)
        assert.isNull(refusedPreflight.headers.get("access-control-allow-origin"))
        const refused = yield* postRpc(`${app.baseUrl}/mcp`, token, toolsList, { origin: APP })
        assert.strictEqual(refused.status, 403)
        assert.include(refused.text, `Invalid Origin header: ${APP}`)
        assert.isNull(refused.headers.get("access-control-allow-origin"))
        // The service's own pages are answered as before.
        const own = yield* postRpc(`${app.baseUrl}/mcp`, token, toolsList, { origin: app.baseUrl })
        assert.strictEqual(own.status, 200, own.text)
        for (const path of ["/token", "/.well-known/oauth-authorization-server"]) {
          const open = yield* preflight(`${app.baseUrl}${path}`, APP)
          assert.strictEqual(open.status, 204, path)
          assert.strictEqual(open.headers.get("access-control-allow-origin"), "*", path)
        }
      })
    )
  })

  describe("any origin", () => {
    it.scoped("`*` grants any web origin when PUBLIC_BASE_URL is https", () =>
      Effect.gen(function* () {
        yield* startClock
        const base = yield* serverWithSettings({
          MCP_ALLOWED_ORIGINS: "*",
          PUBLIC_BASE_URL: "https://cbs.example.com"
        })
        const granted = yield* preflight(`${base}/mcp`, OTHER)
        assert.strictEqual(granted.status, 204)
        assert.strictEqual(granted.headers.get("access-control-allow-origin"), OTHER)
        assert.strictEqual(granted.headers.get("vary"), "Origin")
      })
    )

    for (const [settings, line] of [
      [
        { MCP_ALLOWED_ORIGINS: "*" },
        'cbs: Invalid data at MCP_ALLOWED_ORIGINS: "* (any web origin) is allowed only when PUBLIC_BASE_URL is an https address; list the origins"'
      ],
      [
        { MCP_ALLOWED_ORIGINS: "*", PUBLIC_BASE_URL: "http://cbs.example.com" },
        'cbs: Invalid data at MCP_ALLOWED_ORIGINS: "* (any web origin) is allowed only when PUBLIC_BASE_URL is an https address; list the origins"'
      ],
      [
        { MCP_ALLOWED_ORIGINS: `${APP},https://chat.example/app` },
        'cbs: Invalid data at MCP_ALLOWED_ORIGINS: "https://chat.example/app is not a web origin (scheme://host[:port], no path)"'
      ]
    ] as const) {
      it.effect(`serve refuses to start with ${JSON.stringify(settings)}, saying why in one line`, () =>
        Effect.gen(function* () {
          const result = yield* cbs("serve").pipe(
            Effect.withConfigProvider(
              ConfigProvider.fromMap(new Map(Object.entries(settings))).pipe(
                ConfigProvider.orElse(() => ConfigProvider.fromEnv())
              )
            )
          )
          assert.strictEqual(result.code, 1)
          assert.strictEqual(result.stderr, line)
        })
      )
    }
  })
})
