// The OAuth sign-in of an MCP client over plain HTTP, as a client and its user's browser go through it: a cookie jar
// and redirects read, not followed. Used by scripts/mcp-conformance.ts and scripts/cluster-check.ts.
import { createHash, randomBytes } from "node:crypto"

interface Reply {
  readonly status: number
  readonly text: string
  readonly location: string | undefined
}

/** A browser of its own: a cookie jar, and redirects read rather than followed. */
export const makeBrowser = (origin: string) => {
  const jar = new Map<string, string>()
  const send = async (target: string, init: RequestInit = {}): Promise<Reply> => {
    const headers = new Headers(init.headers)
    if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "))
    const res = await fetch(new URL(target, origin), { ...init, headers, redirect: "manual" })
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const at = pair.indexOf("=")
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (value === "" || /max-age=0(;|$)/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    return { status: res.status, text: await res.text(), location: res.headers.get("location") ?? undefined }
  }
  return {
    get: (target: string) => send(target),
    postForm: (target: string, fields: Record<string, string>) =>
      send(target, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString()
      }),
    postJson: (target: string, body: unknown) =>
      send(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  }
}

const expectStatus = (step: string, reply: Reply, status: number) => {
  if (reply.status !== status) {
    throw new Error(`${step}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`)
  }
}

/** The value of a form's hidden field on an HTML page. */
export const hiddenField = (page: string, name: string) => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  if (match === null) throw new Error(`no hidden field ${name} on the page`)
  return match[1]!
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
}

/** Loopback redirect URI of this pretend client: never visited, the code is read from the 302's Location. */
const REDIRECT_URI = "http://127.0.0.1/mcp-client/callback"

/** Where and as whom to sign in. */
export interface SignInTarget {
  /**
   * Where this script sends its requests, e.g. http://127.0.0.1:41234, and so the resource it asks a token for: the
   * service names itself after the loopback address a client uses when PUBLIC_BASE_URL is not set, and otherwise
   * this is the public address.
   */
  readonly origin: string
  readonly email: string
  readonly password: string
}

/**
 * An access token for the user, obtained the way an MCP client and the user's browser obtain one: dynamic
 * registration, /authorize, the sign-in form, the consent page's Allow, and /token (PKCE S256).
 */
export const signIn = async (started: SignInTarget, clientName = "MCP client check"): Promise<string> => {
  const browser = makeBrowser(started.origin)
  const registered = await browser.postJson("/register", {
    client_name: clientName,
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  })
  expectStatus("POST /register", registered, 201)
  const clientId = (JSON.parse(registered.text) as { client_id: string }).client_id

  const verifier = randomBytes(32).toString("base64url")
  const challenge = createHash("sha256").update(verifier).digest("base64url")
  const state = randomBytes(16).toString("base64url")
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    scope: "mcp",
    resource: `${started.origin}/mcp`
  })
  const start = await browser.get(`/authorize?${query}`)
  expectStatus("GET /authorize", start, 303)
  const form = await browser.get(start.location!)
  expectStatus("GET sign-in form", form, 200)
  const signedIn = await browser.postForm("/signin", {
    email: started.email,
    password: started.password,
    return_to: hiddenField(form.text, "return_to"),
    csrf: hiddenField(form.text, "csrf")
  })
  expectStatus("POST /signin", signedIn, 303)
  const consent = await browser.get(signedIn.location!)
  expectStatus("GET consent page", consent, 200)
  const back = await browser.postForm("/authorize", {
    query: hiddenField(consent.text, "query"),
    csrf: hiddenField(consent.text, "csrf"),
    decision: "allow"
  })
  expectStatus("POST /authorize (Allow)", back, 302)
  const params = new URL(back.location!).searchParams
  const code = params.get("code")
  if (code === null || params.get("state") !== state) throw new Error(`no code in the redirect: ${back.location}`)

  const token = await browser.postForm("/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${started.origin}/mcp`
  })
  expectStatus("POST /token", token, 200)
  const accessToken = (JSON.parse(token.text) as { access_token?: unknown }).access_token
  if (typeof accessToken !== "string") throw new Error(`no access_token from /token: ${token.text}`)
  return accessToken
}
