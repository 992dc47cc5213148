import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { assert, describe, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Layer } from "effect"
import type { Frame, Page } from "playwright-core"
import { demoImage } from "../src/Demo/Images.js"
import { browserAvailable, Chromium, ChromiumLive, inBrowser, screenshot } from "./support/Browser.js"
import { seenTexts } from "./support/BrowserFlows.js"
import { makeBrowser, signInWithSdk, TestOAuthProvider } from "./support/McpClient.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

/**
 * The assistants' cards (MCP Apps, `io.modelcontextprotocol/ui`): the tools that have one point to it in the tool list,
 * the cards are `ui://` resources, and each card, framed the way the extension's hosts frame it (a sandboxed iframe on
 * an origin of its own, under the extension's Content-Security-Policy), draws the result the extension's own host
 * bridge (`AppBridge`) hands it: a dry run's diff with its protected link marked, a saved featured image, a website's
 * month charts (fetched through the host's tool call when the result has none). Screenshots in test-output/.
 */

const PASSWORD = "correct horse battery staple"
const LINK = '<a data-service-protected="backlink" href="https://partner.example/">our partner</a>'
const BODY = [
  "<h2>Before the frost</h2>",
  `<p>Drain the taps, as ${LINK} says.</p>`,
  "<p>Keep the heating on.</p>"
].join("\n")
const HOST = "http://host.localhost"
const SANDBOX = "http://sandbox.localhost"

/** The extension's host bridge and its postMessage transport, bundled for the test host page. */
const hostBridgeScript = Effect.promise(async () => {
  const esbuild = await import("esbuild")
  const built = await esbuild.build({
    stdin: {
      contents:
        'import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge"; Object.assign(window, { AppBridge, PostMessageTransport })',
      resolveDir: fileURLToPath(new URL("..", import.meta.url))
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "error"
  })
  return built.outputFiles[0]!.text
})

// The host and the card's own origin are plain http here, as the service under test is: an https frame would not load
// the service's http images (mixed content), as a real host's https frame loads a deployed service's https ones.

/**
 * The Content-Security-Policy a host puts on a card: the extension's default policy, widened only by the origins the
 * resource declares in `_meta.ui.csp`.
 */
const cardPolicy = (csp: { readonly resourceDomains?: ReadonlyArray<string> } | undefined) => {
  const domains = (csp?.resourceDomains ?? []).join(" ")
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${domains}`,
    `style-src 'self' 'unsafe-inline' ${domains}`,
    `img-src 'self' data: ${domains}`,
    `font-src 'self' ${domains}`,
    `media-src 'self' data: ${domains}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "base-uri 'self'"
  ].join("; ")
}

/** The host page: it frames the card (sandboxed, scripts only) and talks to it through AppBridge. */
const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>
<body style="margin:0;padding:16px;background:#e8eaee;font-family:sans-serif">
<p>Assistant: here is what the tool answered.</p>
<div id="slot"></div>
<script src="/bridge.js"></script>
<script>
window.showCard = async ({ tool, input, result, serverTools }) => {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = "Card";
  frame.style.cssText = "width:100%;height:200px;border:1px solid #c5cad3;border-radius:8px;background:#fff";
  frame.src = "${SANDBOX}/card";
  document.getElementById("slot").replaceChildren(frame);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, serverTools ? { serverTools: {} } : {}, {
    hostContext: { theme: "light", displayMode: "inline", platform: "web", toolInfo: { id: 1, tool } }
  });
  if (serverTools) bridge.oncalltool = (params) => window.callTool(params);
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = height + 2 + "px"; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
  return bridge.getAppVersion();
};
</script></body></html>`

/** Every Content-Security-Policy violation in every frame, kept for the test to read. */
const RECORD_VIOLATIONS = `window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`

interface CardResource {
  readonly html: string
  readonly csp: { readonly resourceDomains?: ReadonlyArray<string> } | undefined
}

/** A page on the test host that frames `card`; `callTool` answers the card's tool calls (through the real client). */
const hostPage = (options: {
  readonly card: CardResource
  readonly width: number
  readonly callTool?: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>
}) =>
  Effect.gen(function* () {
    const browser = yield* Chromium
    const script = yield* hostBridgeScript
    const context = yield* Effect.acquireRelease(
      Effect.promise(() =>
        browser.newContext({
          viewport: { width: options.width, height: 900 },
          // The service under test listens on loopback, which a page of another address may reach only with the
          // person's leave (Local Network Access); a deployed service is on a public address and needs none.
          permissions: ["local-network-access"]
        })
      ),
      (context) => Effect.promise(() => context.close())
    )
    const page = yield* Effect.promise(() => context.newPage())
    yield* inBrowser(async () => {
      await page.addInitScript(RECORD_VIOLATIONS)
      await page.route(`${HOST}/`, (route) => route.fulfill({ contentType: "text/html", body: HOST_PAGE }))
      await page.route(`${HOST}/bridge.js`, (route) => route.fulfill({ contentType: "text/javascript", body: script }))
      await page.route(`${SANDBOX}/card`, (route) =>
        route.fulfill({
          contentType: "text/html",
          headers: { "content-security-policy": cardPolicy(options.card.csp) },
          body: options.card.html
        })
      )
      if (options.callTool !== undefined) await page.exposeFunction("callTool", options.callTool)
      await page.goto(`${HOST}/`)
    })
    return page
  })

/** Shows a tool's input and result in the framed card; answers the card frame once it has drawn `ready`. */
const show = (
  page: Page,
  tool: unknown,
  input: Record<string, unknown>,
  result: unknown,
  ready: string,
  serverTools = false
) =>
  inBrowser(async () => {
    const app = await page.evaluate(
      (message) => (window as unknown as { showCard: (m: unknown) => Promise<{ name: string }> }).showCard(message),
      { tool, input, result, serverTools }
    )
    assert.match(app.name, /^content-backlink-service\//)
    const frame = page.frames().find((candidate) => candidate.url().startsWith(SANDBOX))!
    await frame.waitForSelector(ready)
    // The host sized the frame to the card.
    await page.waitForFunction(() => (document.querySelector("iframe")?.getBoundingClientRect().height ?? 0) > 210)
    return frame
  })

const violations = (frame: Frame) =>
  inBrowser(() => frame.evaluate(() => (window as unknown as { __violations: Array<string> }).__violations))

const textOf = (frame: Frame, selector: string) =>
  inBrowser(async () => (await frame.locator(selector).allInnerTexts()).join("\n"))

/**
 * A signed-in MCP client (Read and edit) of a new account with a website and an article holding a protected link,
 * that names the service by the base URL `baseOf` gives (the test server's own, on 127.0.0.1, unless told otherwise).
 */
const connectedThrough = (baseOf: (baseUrl: string) => string) =>
  Effect.gen(function* () {
    const test = yield* TestApp
    const app = { ...test, baseUrl: baseOf(test.baseUrl) }
    const email = `cards-${randomBytes(4).toString("hex")}@example.com`
    const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
    const siteId = yield* app.makeSite(accountId, { name: "Plumbing Today" })
    const articleId = yield* app.makeArticle(siteId, {
      title: "Pipes in winter",
      body: BODY,
      meta_description: "Old meta",
      status: "published",
      published_at: "2026-09-10T09:00:00Z"
    })
    const mcpUrl = `${app.baseUrl}/mcp`
    const provider = new TestOAuthProvider()
    yield* signInWithSdk({
      mcpUrl,
      browser: makeBrowser(app.baseUrl),
      user: { email, password: PASSWORD },
      provider,
      access: "edit"
    })
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "card-test", version: "1.0.0" })
        await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
    const card = (uri: string) =>
      Effect.promise(async (): Promise<CardResource> => {
        const read = await client.readResource({ uri })
        const content = read.contents[0] as { text: string; _meta?: { ui?: { csp?: CardResource["csp"] } } }
        return { html: content.text, csp: content._meta?.ui?.csp }
      })
    const { tools } = yield* Effect.promise(() => client.listTools())
    /** The tool as the host read it from the tool list (hosts hand it to the card as `toolInfo`). */
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!
    return { app, client, siteId, articleId, card, tool }
  })
const connected = connectedThrough((baseUrl) => baseUrl)

/**
 * Calls the tool `name` with `input` (it must fail when `refused`, else succeed) and shows its answer in the
 * article-change card, in a host page `width` wide, once `ready` is in the card.
 */
const articleChangeCard = (
  { client, card, tool }: Effect.Effect.Success<typeof connected>,
  call: { readonly name: string; readonly input: Record<string, unknown>; readonly refused?: boolean },
  ready: string,
  width = 640
) =>
  Effect.gen(function* () {
    const result = yield* Effect.promise(() => client.callTool({ name: call.name, arguments: call.input }))
    assert.strictEqual(result.isError === true, call.refused ?? false, JSON.stringify(result.content))
    const page = yield* hostPage({ card: yield* card("ui://content-backlink-service/article-change.html"), width })
    const frame = yield* show(page, tool(call.name), call.input, result, ready)
    return { result, page, frame }
  })

describe("the cards as resources", () => {
  layer(TestServerLive)("MCP Apps cards: tool list and resources", (it) => {
    it.scoped("the tools that have a card point to it, and each card is a self-contained HTML resource", () =>
      Effect.gen(function* () {
        const { app, client, card } = yield* connected
        const { tools } = yield* Effect.promise(() => client.listTools())
        const cardOf = (name: string) => {
          const meta = tools.find((tool) => tool.name === name)?._meta as
            | { ui?: { resourceUri?: string }; "ui/resourceUri"?: string }
            | undefined
          // The extension's form and the older flat key, which hosts of the first release read.
          assert.strictEqual(meta?.ui?.resourceUri, meta?.["ui/resourceUri"])
          return meta?.ui?.resourceUri
        }
        assert.strictEqual(cardOf("update_article"), "ui://content-backlink-service/article-change.html")
        assert.strictEqual(cardOf("replace_featured_image"), "ui://content-backlink-service/article-change.html")
        assert.strictEqual(cardOf("get_stats"), "ui://content-backlink-service/stats.html")
        for (const plain of ["list_sites", "list_articles", "get_article", "list_backlinks"]) {
          assert.isUndefined(cardOf(plain), plain)
        }
        const { resources } = yield* Effect.promise(() => client.listResources())
        assert.deepStrictEqual(resources.map((resource) => [resource.uri, resource.mimeType]).sort(), [
          ["ui://content-backlink-service/article-change.html", "text/html;profile=mcp-app"],
          ["ui://content-backlink-service/stats.html", "text/html;profile=mcp-app"]
        ])
        for (const { uri } of resources) {
          const { html, csp } = yield* card(uri)
          // One document: its style and script written into it, nothing loaded from anywhere.
          assert.match(html, /^<!doctype html>/)
          assert.match(html, /<style>[\s\S]+<\/style>/)
          assert.match(html, /<script>[\s\S]+<\/script>/)
          assert.notMatch(html, /<(script|link)\b[^>]*\s(src|href)=/)
          // Its own policy, whatever the host's: nothing fetched, framed or posted; images from the service only.
          const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? ""
          assert.include(policy, "default-src 'none'")
          assert.include(policy, "connect-src 'none'")
          // The origins it may show images from are the service's own: first the address the client used (here
          // 127.0.0.1), then the public address (localhost, without PUBLIC_BASE_URL) that uploads are named with.
          assert.deepStrictEqual(csp, {
            resourceDomains: [
              new URL(app.baseUrl).origin,
              new URL(app.baseUrl).origin.replace("127.0.0.1", "localhost")
            ]
          })
          assert.include(policy, `img-src ${csp?.resourceDomains?.join(" ")} data:`)
        }
        const missing = yield* Effect.promise(() =>
          client.readResource({ uri: "ui://content-backlink-service/nothing.html" }).then(
            () => "read",
            (error: Error) => error.message
          )
        )
        assert.match(missing, /No resource at ui:\/\/content-backlink-service\/nothing\.html/)
      })
    )

    it.scoped(
      "a client that names the service by localhost, its public address, gets cards for that origin alone",
      () =>
        Effect.gen(function* () {
          const { app, client, card } = yield* connectedThrough((baseUrl) => baseUrl.replace("127.0.0.1", "localhost"))
          const localhost = new URL(app.baseUrl).origin
          assert.match(localhost, /^http:\/\/localhost:\d+$/)
          const { resources } = yield* Effect.promise(() => client.listResources())
          for (const { uri } of resources) {
            const { html, csp } = yield* card(uri)
            assert.deepStrictEqual(csp, { resourceDomains: [localhost] })
            assert.include(html, `img-src ${localhost} data:`)
            assert.notInclude(html, "127.0.0.1")
          }
        })
    )
  })
})

describe.runIf(browserAvailable())("in a browser", () => {
  layer(Layer.merge(TestServerLive, ChromiumLive))("MCP Apps cards drawn in the extension's sandboxed frame", (it) => {
    for (const width of [640, 375]) {
      it.scoped(
        `a dry run's card shows the change word by word, the HTML diff with the protected link marked behind Show HTML (${width} px)`,
        () =>
          Effect.gen(function* () {
            const connection = yield* connected
            const { client, articleId } = connection
            const input = {
              article_id: articleId,
              dry_run: true,
              title: "Pipes in a hard winter",
              meta_description: "How to keep pipes from freezing",
              replacements: [{ find: "Drain the taps", replace: "Drain every outdoor tap" }]
            }
            const { result, page, frame } = yield* articleChangeCard(
              connection,
              { name: "update_article", input },
              ".word-diff",
              width
            )
            assert.include(yield* textOf(frame, ".badge"), "Preview")
            const next = (result.structuredContent as { data: { revision: number } }).data.revision
            assert.include(
              yield* textOf(frame, "[role=status]"),
              `Saving would make revision ${next}; the article is at revision ${next - 1}.`
            )
            // The title and meta description, word by word from the current ones the preview carries.
            const fields = frame.locator("dl.field-changes dd")
            assert.deepStrictEqual(yield* seenTexts(fields.nth(0).locator("ins")), ["a hard"])
            assert.deepStrictEqual(yield* inBrowser(() => fields.nth(0).locator("del").count()), 0)
            assert.deepStrictEqual(yield* seenTexts(fields.nth(0)), ["Pipes in a hard winter"])
            assert.deepStrictEqual(yield* seenTexts(fields.nth(1).locator("del")), ["Old meta"])
            assert.deepStrictEqual(yield* seenTexts(fields.nth(1).locator("ins")), ["How to keep pipes from freezing"])
            // The body as text: the words removed, the words inserted, the protected link kept as a link.
            const body = frame.locator("div.word-diff")
            assert.deepStrictEqual(yield* seenTexts(body.locator("del")), ["the taps"])
            assert.deepStrictEqual(yield* seenTexts(body.locator("ins")), ["every outdoor tap"])
            // Said to a screen reader as removed and inserted words, in the card as on the pages.
            const said = yield* inBrowser(() => body.ariaSnapshot())
            assert.include(said, 'deletion: "[removed: the taps ]"')
            assert.include(said, 'insertion: "[inserted: every outdoor tap ]"')
            assert.strictEqual(yield* textOf(frame, "div.word-diff mark.protected-source a"), "our partner")
            // The HTML diff is behind Show HTML, closed until asked for.
            const source = frame.locator("details.html-diff pre.diff")
            assert.isFalse(yield* inBrowser(() => source.isVisible()))
            yield* inBrowser(() => frame.locator("details.html-diff summary").click())
            assert.isTrue(yield* inBrowser(() => source.isVisible()))
            assert.include(yield* textOf(frame, "pre.diff del"), "Drain the taps")
            assert.include(yield* textOf(frame, "pre.diff ins"), "Drain every outdoor tap")
            // The protected link is marked on both sides of the changed line, its source kept as written.
            const marked = yield* textOf(frame, "pre.diff mark.protected-source")
            assert.strictEqual(marked.split("\n").length, 2, marked)
            assert.include(marked, 'data-service-protected="backlink"')
            assert.include(yield* textOf(frame, "ul.protected"), "our partner")
            assert.deepStrictEqual(yield* violations(frame), [])
            yield* screenshot(page, `card-update-preview-${width}`)
            // Nothing was saved by the preview.
            const read = yield* Effect.promise(() =>
              client.callTool({ name: "get_article", arguments: { article_id: articleId } })
            )
            assert.strictEqual((read.structuredContent as { data: { revision: number } }).data.revision, next - 1)
          })
      )
    }

    it.scoped("a refused change's card says nothing was saved and why", () =>
      Effect.gen(function* () {
        const connection = yield* connected
        const { articleId } = connection
        const input = { article_id: articleId, dry_run: true, replacements: [{ find: LINK, replace: "our partner" }] }
        const { page, frame } = yield* articleChangeCard(
          connection,
          { name: "update_article", input, refused: true },
          "[role=alert]"
        )
        const alert = yield* textOf(frame, "[role=alert]")
        assert.include(alert, "Nothing was saved.")
        assert.include(alert, "protected_link_violation")
        yield* screenshot(page, "card-update-refused-640")
      })
    )

    it.scoped("the card shows a title stored with a bidirectional override as a visible marker, in <bdi>", () =>
      Effect.gen(function* () {
        const connection = yield* connected
        const { app, siteId } = connection
        const spoofed = yield* app.makeArticle(siteId, { title: "\u202Ecod.exe", body: "<p>Some text.</p>" })
        const input = { article_id: spoofed, dry_run: true, meta_description: "A plain line" }
        const { frame } = yield* articleChangeCard(connection, { name: "update_article", input }, "h2 bdi")
        assert.strictEqual(yield* textOf(frame, "h2 bdi"), "⟨U+202E⟩cod.exe")
        assert.deepStrictEqual(yield* seenTexts(frame.locator("dl.field-changes ins")), ["A plain line"])
        assert.deepStrictEqual(yield* violations(frame), [])
      })
    )

    it.scoped("a saved featured image's card shows the image from the service and the revision it made", () =>
      Effect.gen(function* () {
        const connection = yield* connected
        const { articleId } = connection
        const input = {
          article_id: articleId,
          image: Buffer.from(demoImage("Frozen pipe")).toString("base64"),
          reason: "A winter picture"
        }
        const { result, page, frame } = yield* articleChangeCard(
          connection,
          { name: "replace_featured_image", input },
          "img.card-image"
        )
        assert.include(yield* textOf(frame, ".badge"), "Saved")
        const made = (result.structuredContent as { data: { revision: number } }).data.revision
        assert.include(yield* textOf(frame, "[role=status]"), `Revision ${made} is now the article's current revision`)
        // The image loaded: the card's policy allows the service's own origin, and nothing else.
        yield* inBrowser(() =>
          frame.waitForFunction(() => (document.querySelector("img.card-image") as HTMLImageElement).naturalWidth > 0)
        )
        assert.deepStrictEqual(yield* violations(frame), [])
        yield* screenshot(page, "card-featured-image-640")
      })
    )

    for (const width of [640, 375]) {
      it.scoped(`the stats card draws the month charts, asking the host for the months (${width} px)`, () =>
        Effect.gen(function* () {
          const { app, client, siteId, card, tool } = yield* connected
          for (const [day, category] of [
            ["2026-06-03", "industry"],
            ["2026-07-14", "local"],
            ["2026-07-20", "industry"],
            ["2026-09-02", "local"]
          ] as const) {
            yield* app.makeBacklink(siteId, { acquired_at: `${day}T10:00:00Z`, category })
          }
          const input = { site_id: siteId, period: "2026-09" }
          const result = yield* Effect.promise(() => client.callTool({ name: "get_stats", arguments: input }))
          assert.notStrictEqual(result.isError, true, JSON.stringify(result.content))
          const asked: Array<unknown> = []
          const page = yield* hostPage({
            card: yield* card("ui://content-backlink-service/stats.html"),
            width,
            callTool: (params) => {
              asked.push(params)
              return client.callTool(params)
            }
          })
          const frame = yield* show(page, tool("get_stats"), input, result, "figure.chart", true)
          // The card asked for the twelve months ending with the period's month, through the host.
          assert.deepStrictEqual(asked, [
            { name: "get_stats", arguments: { site_id: siteId, from: "2026-09-01", to: "2026-09-30", months: 12 } }
          ])
          assert.strictEqual(yield* inBrowser(() => frame.locator("figure.chart").count()), 2)
          // Bars: one article month (September) and three backlink months (June, July stacked, September).
          assert.strictEqual(yield* inBrowser(() => frame.locator("#chart-articles-caption ~ svg rect").count()), 1)
          assert.strictEqual(yield* inBrowser(() => frame.locator("figure:nth-of-type(2) svg rect").count()), 4)
          assert.include(yield* textOf(frame, "figcaption"), "October 2025 to September 2026")
          assert.include(yield* textOf(frame, "h2"), "September 2026")
          assert.deepStrictEqual(yield* inBrowser(() => frame.locator("dl.stats dd").allInnerTexts()), [
            "1",
            "1",
            "0",
            "1"
          ])
          assert.deepStrictEqual(yield* violations(frame), [])
          yield* screenshot(page, `card-stats-${width}`)
        })
      )
    }

    it.scoped(
      "without the host's tool calls the stats card shows the counts, and the months when the result has them",
      () =>
        Effect.gen(function* () {
          const { client, siteId, card, tool } = yield* connected
          const resource = yield* card("ui://content-backlink-service/stats.html")
          const plain = { site_id: siteId, period: "2026-09" }
          const counts = yield* Effect.promise(() => client.callTool({ name: "get_stats", arguments: plain }))
          const page = yield* hostPage({ card: resource, width: 640 })
          const frame = yield* show(page, tool("get_stats"), plain, counts, "dl.stats")
          assert.strictEqual(yield* inBrowser(() => frame.locator("figure.chart").count()), 0)
          assert.include(yield* textOf(frame, "p.muted"), "does not let the card fetch the months")
          const withMonths = { ...plain, months: 3 }
          const series = yield* Effect.promise(() => client.callTool({ name: "get_stats", arguments: withMonths }))
          const again = yield* hostPage({ card: resource, width: 640 })
          const charted = yield* show(again, tool("get_stats"), withMonths, series, "figure.chart")
          assert.include(yield* textOf(charted, "figcaption"), "July 2026 to September 2026")
        })
    )
  })
})
