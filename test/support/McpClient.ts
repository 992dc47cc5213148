import { randomBytes } from "node:crypto"
import { request } from "node:http"
import { assert } from "@effect/vitest"
import {
  auth,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens
} from "@modelcontextprotocol/client"
import { Effect } from "effect"

// ---------------------------------------------------------------------------------------------------------------
// A tiny browser: fetch without following redirects, with a cookie jar.

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly location: string | undefined
}

const FORM = { "content-type": "application/x-www-form-urlencoded" }

/**
 * A browser that starts on `origin`. As a browser does, it resolves a path against the origin of the last address it
 * went to (an authorization URL at http://localhost:… keeps it on localhost); cookies are kept whatever the host.
 */
export const makeBrowser = (origin: string) => {
  const jar = new Map<string, string>()
  let current = origin
  const send = (target: string | URL, init: RequestInit = {}) =>
    Effect.promise(async (): Promise<Reply> => {
      const headers = new Headers(init.headers)
      if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "))
      const url = new URL(target, current)
      current = url.origin
      const res = await fetch(url, { ...init, headers, redirect: "manual" })
      for (const line of res.headers.getSetCookie()) {
        const [pair = ""] = line.split(";")
        const at = pair.indexOf("=")
        const name = pair.slice(0, at)
        const value = pair.slice(at + 1)
        if (value === "" || /max-age=0(;|$)/i.test(line)) jar.delete(name)
        else jar.set(name, value)
      }
      return {
        status: res.status,
        headers: res.headers,
        text: await res.text(),
        location: res.headers.get("location") ?? undefined
      }
    })
  return {
    jar,
    get: (target: string | URL, headers: Record<string, string> = {}) => send(target, { headers }),
    post: (target: string | URL, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      send(target, { method: "POST", headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() }),
    postJson: (target: string | URL, body: unknown) =>
      send(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    send
  }
}
export type Browser = ReturnType<typeof makeBrowser>

export const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

/** The value of a hidden form field on a page. */
export const hiddenField = (page: string, name: string) => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  return match === null ? undefined : decodeEntities(match[1]!)
}

/** Opens the sign-in form (which sets its cookie) and reads its hidden CSRF token, if it has one. */
export const signInFormToken = (browser: Browser, path = "/signin") =>
  Effect.map(browser.get(path), (form) => hiddenField(form.text, "csrf"))

/** The sign-in form's fields with its CSRF token, as the browser posts them. */
export const withToken = (fields: Record<string, string>, csrf: string | undefined) =>
  csrf === undefined ? fields : { ...fields, csrf }

/** Submits the sign-in form as a browser does: opens `/signin` first, then posts `fields` with the form's token. */
export const submitSignIn = (browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  Effect.flatMap(signInFormToken(browser), (csrf) => browser.post("/signin", withToken(fields, csrf), headers))

/**
 * The user's part of the authorization: open the authorization URL, sign in with the form, press Allow on the
 * consent page. The redirect back to the client (302) and its query parameters.
 */
export const allowInBrowser = (
  browser: Browser,
  authorizationUrl: URL,
  user: { readonly email: string; readonly password: string },
  /** The person's choice on the consent page; without it the page's default (what the client asked for). */
  access?: "read" | "edit"
) =>
  Effect.gen(function* () {
    const start = yield* browser.get(authorizationUrl)
    assert.strictEqual(start.status, 303, `GET /authorize: ${start.text}`)
    const form = yield* browser.get(start.location!)
    assert.strictEqual(form.status, 200, `sign-in form: ${form.text}`)
    const signedIn = yield* browser.post("/signin", {
      email: user.email,
      password: user.password,
      return_to: hiddenField(form.text, "return_to") ?? "",
      csrf: hiddenField(form.text, "csrf") ?? ""
    })
    assert.strictEqual(signedIn.status, 303, `POST /signin: ${signedIn.text}`)
    const consent = yield* browser.get(signedIn.location!)
    assert.strictEqual(consent.status, 200, `consent page: ${consent.text}`)
    const back = yield* browser.post("/authorize", {
      query: hiddenField(consent.text, "query") ?? "",
      csrf: hiddenField(consent.text, "csrf") ?? "",
      decision: "allow",
      ...(access === undefined ? {} : { access })
    })
    assert.strictEqual(back.status, 302, `POST /authorize: ${back.text}`)
    return { location: back.location!, params: new URL(back.location!).searchParams }
  })

// ---------------------------------------------------------------------------------------------------------------
// The MCP client's OAuth side: an in-memory OAuthClientProvider that records what the SDK hands it.

export const REDIRECT_URI = "http://127.0.0.1:33418/callback"

export class TestOAuthProvider implements OAuthClientProvider {
  /**
   * `clientMetadataUrl`: the client names itself by this metadata document's URL instead of registering, where the
   * server says it takes such documents.
   */
  readonly clientMetadataUrl?: string
  constructor(clientMetadataUrl?: string) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl
  }
  readonly redirectUrl = REDIRECT_URI
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "MCP Test Assistant",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  }
  /** The `state` this client sends with its authorization request. */
  readonly stateValue = randomBytes(16).toString("base64url")
  /** Every URL the SDK sent the user to, in order. */
  readonly authorizationUrls: Array<URL> = []
  /** Every token set the SDK saved, in order (the last is the current one). */
  readonly savedTokens: Array<OAuthTokens> = []
  client: OAuthClientInformationMixed | undefined = undefined
  private verifier: string | undefined = undefined

  state() {
    return this.stateValue
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information
  }
  tokens() {
    return this.savedTokens.at(-1)
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens.push(tokens)
  }
  redirectToAuthorization(authorizationUrl: URL) {
    this.authorizationUrls.push(authorizationUrl)
  }
  /** What the SDK discovered before the redirect, so that it can check the callback against the same server. */
  private discovery: OAuthDiscoveryState | undefined = undefined
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
  saveCodeVerifier(codeVerifier: string) {
    this.verifier = codeVerifier
  }
  codeVerifier() {
    if (this.verifier === undefined) throw new Error("no code verifier saved")
    return this.verifier
  }
}

/**
 * Signs `user` in for the MCP endpoint at `mcpUrl` with the SDK's own `auth()` (discovery, registration, PKCE,
 * token exchange) and the browser for the sign-in and Allow steps; the provider then holds the tokens.
 */
export const signInWithSdk = (options: {
  readonly mcpUrl: string
  readonly browser: Browser
  readonly user: { readonly email: string; readonly password: string }
  readonly provider?: TestOAuthProvider
  readonly access?: "read" | "edit"
}) =>
  Effect.gen(function* () {
    const provider = options.provider ?? new TestOAuthProvider()
    const started = yield* Effect.promise(() => auth(provider, { serverUrl: options.mcpUrl }))
    assert.strictEqual(started, "REDIRECT")
    const back = yield* allowInBrowser(
      options.browser,
      provider.authorizationUrls.at(-1)!,
      options.user,
      options.access
    )
    const code = back.params.get("code")
    assert.isString(code, back.location)
    const finished = yield* Effect.promise(() =>
      auth(provider, { serverUrl: options.mcpUrl, authorizationCode: code!, iss: back.params.get("iss") ?? "" })
    )
    assert.strictEqual(finished, "AUTHORIZED")
    const tokens = provider.tokens()!
    return { provider, accessToken: tokens.access_token }
  })

// ---------------------------------------------------------------------------------------------------------------
// Raw JSON-RPC over HTTP: the endpoint is stateless, so a tools/call needs no initialize first.

export interface HttpReply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

export const MCP_ACCEPT = "application/json, text/event-stream"

/** A POST to `url` with a JSON-RPC body, the bearer token (if any) and the headers the transport requires. */
export const postRpc = (
  url: string,
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {}
): Effect.Effect<HttpReply> => postRpcText(url, token, JSON.stringify(body), headers)

/** The same POST with `text` as its body, exactly as written (not JSON, say). */
export const postRpcText = (
  url: string,
  token: string | undefined,
  text: string,
  headers: Record<string, string> = {}
): Effect.Effect<HttpReply> =>
  Effect.promise(async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        accept: MCP_ACCEPT,
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers
      },
      body: text
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  })

export const toolsCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name, arguments: args }
})

export const toolsList = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }

/**
 * Calls a tool with raw JSON-RPC; the HTTP exchange must succeed (tool errors are results). Whether the result is
 * an error, its text parsed as JSON, and its structured content.
 */
export const callToolRaw = (url: string, token: string, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* postRpc(url, token, toolsCall(name, args))
    assert.strictEqual(reply.status, 200, reply.text)
    const message = JSON.parse(reply.text)
    assert.isUndefined(message.error, reply.text)
    const result = message.result
    const content = result.content as ReadonlyArray<{ readonly type: string; readonly text: string }>
    assert.strictEqual(content.length, 1, reply.text)
    assert.strictEqual(content[0]!.type, "text")
    return {
      isError: result.isError === true,
      text: JSON.parse(content[0]!.text),
      structured: result.structuredContent as unknown
    }
  })

/** A POST to /mcp sent with node:http, so that the Host header can be anything. */
export const postWithHost = (url: string, host: string, token: string, body: unknown) =>
  Effect.async<HttpReply>((resume) => {
    const payload = JSON.stringify(body)
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          host,
          accept: MCP_ACCEPT,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(payload)),
          authorization: `Bearer ${token}`
        }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") headers.set(name, value)
          }
          resume(Effect.succeed({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString("utf8") }))
        })
      }
    )
    req.on("error", (error) => resume(Effect.die(error)))
    req.end(payload)
  })
