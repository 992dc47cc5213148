import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { browserAvailable, ChromiumLive, inBrowser, newPage } from "./support/Browser.js"
import { makeBrowser, signInWithSdk } from "./support/McpClient.js"
import { serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"
import { toolNames } from "./support/Tools.js"

const PASSWORD = "correct horse battery staple"

/**
 * A browser-based assistant's page: on load it POSTs `tools/list` to the `/mcp` and with the token its address's
 * fragment names, as a web app does once signed in, and writes what it could read of the answer into `#result`.
 */
const ASSISTANT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A web assistant</title></head>
<body><pre id="result"></pre>
<script>
(async () => {
  const { mcp, token } = JSON.parse(decodeURIComponent(location.hash.slice(1)))
  const out = document.getElementById("result")
  try {
    const res = await fetch(mcp, {
      method: "POST",
      headers: {
        authorization: "Bearer " + token,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
    })
    const body = await res.json()
    out.textContent = JSON.stringify({
      status: res.status,
      tools: body.result.tools.length,
      requestId: res.headers.get("x-request-id"),
      remaining: res.headers.get("ratelimit-remaining")
    })
  } catch (error) {
    out.textContent = JSON.stringify({ failed: String(error) })
  }
  out.dataset.done = "yes"
})()
</script></body></html>`

/** A second local HTTP server, on another port (so another origin), serving the assistant's page. Its port. */
const assistantSite = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly close: () => void }>((resume) => {
    const server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(ASSISTANT_PAGE)
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ port, close: () => server.close() }))
    })
  }),
  (site) => Effect.sync(site.close)
)

/** What the page at `pageUrl` could read of its call to `mcp` with `token`. */
const callFromPage = (pageUrl: string, mcp: string, token: string) =>
  Effect.gen(function* () {
    const page = yield* newPage({ baseURL: pageUrl })
    yield* inBrowser(() => page.goto(`${pageUrl}/#${encodeURIComponent(JSON.stringify({ mcp, token }))}`))
    yield* inBrowser(() => page.locator("#result[data-done]").waitFor())
    const text = yield* inBrowser(() => page.locator("#result").textContent())
    return JSON.parse(text ?? "{}") as Record<string, unknown>
  })

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("browser: a web assistant on another origin", (it) => {
    it.scoped(
      "a page of an origin MCP_ALLOWED_ORIGINS lists calls /mcp with its token and reads the answer; another origin's page cannot",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.now())
          const site = yield* assistantSite
          const listed = `http://127.0.0.1:${site.port}`
          const base = yield* serverWithSettings({ MCP_ALLOWED_ORIGINS: listed })
          const app = yield* TestApp
          const email = `web-assistant-${randomBytes(4).toString("hex")}@example.com`
          yield* app.makeAccount({ email, password: PASSWORD })
          const { accessToken } = yield* signInWithSdk({
            mcpUrl: `${base}/mcp`,
            browser: makeBrowser(base),
            user: { email, password: PASSWORD }
          })

          const answered = yield* callFromPage(listed, `${base}/mcp`, accessToken)
          assert.strictEqual(answered["status"], 200, JSON.stringify(answered))
          assert.strictEqual(answered["tools"], toolNames.length)
          // The headers a client reads are exposed to it.
          assert.isString(answered["requestId"])
          assert.isString(answered["remaining"])

          // The same page served as another origin (localhost is not 127.0.0.1 to a browser): refused by the
          // preflight, so the POST is never sent and nothing of an answer can be read.
          const refused = yield* callFromPage(`http://localhost:${site.port}`, `${base}/mcp`, accessToken)
          assert.match(String(refused["failed"]), /TypeError/)
        })
    )
  })
})
