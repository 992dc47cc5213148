// @tags: runtime
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { afterAll, assert, beforeAll, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { isPublicAddress } from "../src/Http/OutboundAddress.js"
import { OutboundPolicy } from "../src/Http/OutboundFetch.js"
import { clientIdUrlProblem } from "../src/OAuth/MetadataDocuments.js"
import { callToolRaw, makeBrowser, REDIRECT_URI, signInWithSdk, TestOAuthProvider } from "./support/McpClient.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"
import { TestApp, testServerOn } from "./support/TestServer.js"

/**
 * Client ID Metadata Documents: a client names itself by the https:// URL of a JSON document describing it. The
 * documents here are served by a local HTTPS server with a test certificate; the service trusts that certificate and
 * the name `localhost` through OutboundPolicy, which only a test can set. Any other loopback or private address
 * stays refused, as in production.
 */

const cert = readFileSync(new URL("./fixtures/metadata-host-cert.pem", import.meta.url), "utf8")
const key = readFileSync(new URL("./fixtures/metadata-host-key.pem", import.meta.url), "utf8")

/** What the document host answers, by path; `{origin}` in a body is replaced by its own https://localhost:port. */
const documents = new Map<string, { status?: number; headers?: Record<string, string>; body: string }>()
let host: Server
let origin = ""
const fetched: Array<string> = []

const documentFor = (path: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: `${origin}${path}`,
    client_name: "Metadata Test Assistant",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra
  })

beforeAll(async () => {
  host = createServer({ key, cert }, (req, res) => {
    fetched.push(req.url ?? "")
    const answer = documents.get(req.url ?? "")
    if (answer === undefined) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers }).end(answer.body)
  })
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve))
  const port = (host.address() as AddressInfo).port
  origin = `https://localhost:${port}`
  documents.set("/client.json", { body: documentFor("/client.json") })
  documents.set("/wrong-id.json", { body: documentFor("/client.json") })
  documents.set("/with-secret.json", { body: documentFor("/with-secret.json", { client_secret: "s3cret" }) })
  documents.set("/big.json", { body: documentFor("/big.json", { padding: "x".repeat(100 * 1024) }) })
  documents.set("/not-json.json", { body: "<html>hello</html>" })
  documents.set("/spoofed-name.json", {
    body: documentFor("/spoofed-name.json", { client_name: "\u202EtnatsissA tseT" })
  })
  // A redirect to another loopback address: checked again, and refused.
  documents.set("/to-private.json", {
    status: 302,
    headers: { location: `https://127.0.0.2:${port}/client.json` },
    body: ""
  })
})
afterAll(() => host?.close())

const policy = Layer.effect(
  OutboundPolicy,
  Effect.sync(() => ({ trustedHosts: new Set(["localhost"]), ca: cert }))
)

/** An authorization request a client with `clientId` would send, signed out: its status and page. */
const authorize = (clientId: string, redirectUri = REDIRECT_URI) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const verifier = randomBytes(32).toString("base64url")
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "xyz"
    })
    const res = yield* app.fetch(`/authorize?${query}`, { redirect: "manual" })
    return { status: res.status, text: yield* Effect.promise(() => res.text()), location: res.headers.get("location") }
  })

describe("client id URLs and addresses", () => {
  it("a client id URL must be https with a path, without credentials, fragment or dot segments", () => {
    assert.isUndefined(clientIdUrlProblem("https://app.example/oauth/client.json"))
    assert.include(clientIdUrlProblem("http://app.example/client.json"), "https://")
    assert.include(clientIdUrlProblem("https://app.example/"), "no path")
    assert.include(clientIdUrlProblem("https://app.example"), "no path")
    assert.include(clientIdUrlProblem("https://user:pw@app.example/c.json"), "user name or password")
    assert.include(clientIdUrlProblem("https://app.example/c.json#x"), "fragment")
    assert.include(clientIdUrlProblem("https://app.example/a/../c.json"), ". or ..")
  })

  it("only public unicast addresses are fetched", () => {
    for (const address of ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]) {
      assert.isTrue(isPublicAddress(address), address)
    }
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "fe80::1",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "not an address"
    ]) {
      assert.isFalse(isPublicAddress(address), address)
    }
  })

  it("an IPv4-compatible IPv6 address (::/96) is judged by the IPv4 address it carries", () => {
    for (const address of [
      "::7f00:1",
      "::a9fe:a9fe",
      "::a00:1",
      "::c0a8:101",
      "::ac10:1",
      "::6440:1",
      "::e000:1",
      "0:0:0:0:0:0:7f00:1",
      "::",
      "::1"
    ]) {
      assert.isFalse(isPublicAddress(address), address)
    }
    // The public IPv4 address it carries (93.184.215.14), as it would be judged written as IPv4.
    assert.isTrue(isPublicAddress("::5db8:d70e"))
  })
})

layer(testServerOn(TestDatabaseLive, policy))("client ID metadata documents", (it) => {
  it.effect("the authorization server says it takes metadata documents, and still takes registrations", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const res = yield* app.fetch("/.well-known/oauth-authorization-server")
      const metadata = (yield* Effect.promise(() => res.json())) as Record<string, unknown>
      assert.strictEqual(metadata["client_id_metadata_document_supported"], true)
      assert.strictEqual(metadata["registration_endpoint"], `${app.baseUrl}/register`)
    })
  )

  it.effect("a client named by its metadata document's URL signs in without registering and calls a tool", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.now())
      const app = yield* TestApp
      const email = `cimd-${randomBytes(4).toString("hex")}@example.com`
      yield* app.makeAccount({ email, password: "correct horse battery staple" })
      const provider = new TestOAuthProvider(`${origin}/client.json`)
      const mcpUrl = `${app.baseUrl}/mcp`
      fetched.length = 0
      const { accessToken } = yield* signInWithSdk({
        mcpUrl,
        browser: makeBrowser(app.baseUrl),
        user: { email, password: "correct horse battery staple" },
        provider
      })
      assert.strictEqual(provider.clientInformation()?.client_id, `${origin}/client.json`)
      // Fetched once for the authorization and kept for the token exchange (the document's life is five minutes).
      assert.deepStrictEqual(fetched, ["/client.json"])
      const reply = yield* callToolRaw(mcpUrl, accessToken, "list_sites", {})
      assert.isFalse(reply.isError, JSON.stringify(reply.text))
      assert.isArray((reply.structured as { data: unknown }).data)
      const page = yield* authorize(`${origin}/client.json`)
      assert.strictEqual(page.status, 303, "a good document leads on to sign in")
      assert.strictEqual(fetched.length, 1, "the kept document is used while its life lasts")
      // Past its life (five minutes when the document says nothing) it is fetched again.
      yield* TestClock.adjust("6 minutes")
      assert.strictEqual((yield* authorize(`${origin}/client.json`)).status, 303)
      assert.deepStrictEqual(fetched, ["/client.json", "/client.json"])
    })
  )

  it.effect("a document at, or redirecting to, a private or loopback address is refused with a clear message", () =>
    Effect.gen(function* () {
      for (const clientId of [
        "https://127.0.0.2:4443/client.json",
        "https://10.0.0.7/client.json",
        "https://[::1]/client.json",
        "https://169.254.169.254/latest/meta-data.json",
        `${origin}/to-private.json`
      ]) {
        const page = yield* authorize(clientId)
        assert.strictEqual(page.status, 400, clientId)
        assert.include(page.text, "is not a public internet address", clientId)
        assert.include(page.text, "cannot be used", clientId)
      }
    })
  )

  it.effect(
    "a document that is not the client's, holds a secret, is too large, is not JSON, or names the client with a control character is refused",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["/wrong-id.json", "its client_id is not exactly the address it was fetched from"],
          ["/with-secret.json", "client secret"],
          ["/big.json", "larger than 65536 bytes"],
          ["/not-json.json", "not a JSON object"],
          ["/missing.json", "answered HTTP 404"],
          ["/spoofed-name.json", "client_name must be one line of text without control characters (found U+202E)"]
        ]
        for (const [path, why] of cases) {
          const page = yield* authorize(`${origin}${path}`)
          assert.strictEqual(page.status, 400, path)
          assert.include(page.text, why, path)
        }
        // A good document, but a return address it does not list.
        const page = yield* authorize(`${origin}/client.json`, "https://evil.example/callback")
        assert.strictEqual(page.status, 400)
        assert.include(page.text, "not one the application registered")
      })
  )

  it.effect("at the token endpoint a refused document is invalid_client, saying why", () =>
    Effect.gen(function* () {
      const app = yield* TestApp
      const res = yield* app.fetch("/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "nothing",
          code_verifier: "x".repeat(43),
          redirect_uri: REDIRECT_URI,
          client_id: "https://10.0.0.7/client.json"
        }).toString()
      })
      const body = (yield* Effect.promise(() => res.json())) as Record<string, string>
      assert.strictEqual(res.status, 401)
      assert.strictEqual(body["error"], "invalid_client")
      assert.include(body["error_description"], "is not a public internet address")
    })
  )
})
