import fc from "fast-check"
import { hostileString, rarely, shortHostileString, usually } from "./Hostile.js"
import { asHeaderValue, type FormField, form, formType, framing, headersOf, jsonBody, pick } from "./HostileHttp.js"
import { hostileJson } from "./HostileJson.js"
import type { RawFraming, RawRequest } from "./RawHttp.js"

// Requests to the OAuth endpoints: /register, /token, GET and POST /authorize.

export interface OAuthFixtures {
  readonly publicClientId: string
  readonly confidentialClientId: string
  readonly confidentialSecret: string
  readonly redirectUri: string
  /** `<base>/mcp`: the only resource tokens are issued for. */
  readonly resource: string
  readonly refreshToken: string
  /** A code issued for the public client (once good; later ones are replays). */
  readonly code: string
  readonly codeVerifier: string
  /** A signed-in browser's session cookie and the CSRF token of its forms. */
  readonly sessionCookie: string
  readonly sessionCsrf: string
  readonly origin: string
}

const goodRedirectUris = [
  "http://127.0.0.1:33418/callback",
  "http://localhost/cb",
  "https://app.example/cb",
  "https://app.example/cb?x=1",
  "com.example.app:/oauth",
  "https://ü.example/"
]
const badRedirectUris = [
  "https://app.example/cb#fragment",
  "javascript:alert(1)",
  "http://app.example/cb",
  "http://[::1]:0/",
  "http://user:pass@app.example/",
  "urn:ietf:wg:oauth:2.0:oob",
  `https://app.example/${"a".repeat(3000)}`,
  ""
]
const redirectUris = [...goodRedirectUris, ...badRedirectUris]

export const registerRequest = (): fc.Arbitrary<RawRequest> => {
  const metadata = fc
    .record({
      redirect_uris: fc.oneof(
        { weight: 8, arbitrary: fc.array(pick(goodRedirectUris, hostileString), { minLength: 1, maxLength: 3 }) },
        { weight: 2, arbitrary: fc.array(fc.constantFrom(...redirectUris), { minLength: 1, maxLength: 3 }) },
        { weight: 1, arbitrary: fc.array(fc.constant("https://app.example/cb"), { minLength: 21, maxLength: 21 }) },
        { weight: 1, arbitrary: hostileJson }
      ),
      client_name: usually(3, fc.oneof({ weight: 4, arbitrary: hostileString }, hostileJson)),
      grant_types: usually(
        2,
        fc.oneof(
          { weight: 3, arbitrary: fc.constant<unknown>(["authorization_code", "refresh_token"]) },
          fc.array(pick(["authorization_code", "refresh_token", "client_credentials"], shortHostileString)),
          hostileJson
        )
      ),
      response_types: usually(2, fc.oneof({ weight: 3, arbitrary: fc.constant<unknown>(["code"]) }, hostileJson)),
      token_endpoint_auth_method: usually(
        3,
        pick<unknown>(["none", "client_secret_post", "client_secret_basic"], hostileJson)
      ),
      scope: rarely(3, fc.oneof(fc.constant<unknown>("mcp"), hostileJson)),
      logo_uri: rarely(6, hostileJson)
    })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)))
  const fields = ["redirect_uris", "client_name", "grant_types", "token_endpoint_auth_method"]
  return fc.record({ body: jsonBody(metadata, fields), framing }).map(({ body, framing }) => ({
    method: "POST",
    target: "/register",
    headers: headersOf([["content-type", body.contentType]]),
    body: body.body,
    framing
  }))
}

export const tokenRequest = (fx: OAuthFixtures): fc.Arbitrary<RawRequest> => {
  const basic = (text: string) => `Basic ${Buffer.from(text, "utf8").toString("base64")}`
  const client = (grant: string): ReadonlyArray<FormField> => [
    [
      "grant_type",
      grant,
      pick(["authorization_code", "refresh_token", "client_credentials", "password"], hostileString)
    ],
    ["client_id", fx.publicClientId, pick([fx.confidentialClientId], hostileString)],
    ["resource", fx.resource, hostileString]
  ]
  const body = fc.oneof(
    form([
      ...client("authorization_code"),
      ["code", fx.code, hostileString],
      ["redirect_uri", fx.redirectUri, pick(redirectUris, hostileString)],
      ["code_verifier", fx.codeVerifier, pick(["a".repeat(43), "a".repeat(129)], hostileString)]
    ]),
    form([
      ...client("refresh_token"),
      ["refresh_token", fx.refreshToken, hostileString],
      ["scope", "mcp", hostileString]
    ]),
    form([
      ["grant_type", "refresh_token", hostileString],
      ["client_id", fx.confidentialClientId, hostileString],
      ["client_secret", fx.confidentialSecret, hostileString],
      ["refresh_token", fx.refreshToken, hostileString]
    ])
  )
  const authorization = rarely(
    3,
    fc.oneof(
      fc.constant(basic(`${fx.confidentialClientId}:${fx.confidentialSecret}`)),
      shortHostileString.map((junk) => basic(junk)),
      shortHostileString.map((junk) => asHeaderValue(`Basic ${junk}`)),
      fc.constantFrom("Basic", "Basic !!!", `Basic ${"A".repeat(10_000)}`, "Bearer x")
    )
  )
  return fc.record({ body, type: formType, authorization, framing }).map(({ body, type, authorization, framing }) => ({
    method: "POST",
    target: "/token",
    headers: headersOf([
      ["content-type", type],
      ["authorization", authorization]
    ]),
    body,
    framing
  }))
}

/** An authorization request's query (without `?`): nearly right, or anything. */
const authorizeQuery = (fx: OAuthFixtures) =>
  form([
    ["client_id", fx.publicClientId, pick([fx.confidentialClientId], hostileString)],
    ["redirect_uri", fx.redirectUri, pick(redirectUris, hostileString)],
    ["response_type", "code", pick(["token"], hostileString)],
    ["code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", hostileString],
    ["code_challenge_method", "S256", pick(["plain"], hostileString)],
    ["state", "fuzz-state", hostileString],
    ["scope", "mcp", hostileString],
    ["resource", fx.resource, hostileString],
    ["prompt", "consent", pick(["none", "login consent"], hostileString)]
  ])

/** The signed-in browser's session cookie (mostly), none, or junk. */
const sessionCookie = (fx: OAuthFixtures) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<string | undefined>(fx.sessionCookie) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: shortHostileString.map((junk) => asHeaderValue(`cbs_session=${junk}`)) }
  )

/** An `Origin` header: none or this service's (mostly), another site's, or `null`. */
export const ownOrNot = (origin: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<string | undefined>(undefined, origin) },
    { weight: 1, arbitrary: fc.constantFrom("https://evil.example", "null", origin.replace("http:", "https:")) }
  )

/** A browser's form posted to `target`, with its content type, cookie and origin where it has them. */
export const formPost =
  (target: string) =>
  (form: {
    readonly body: string
    readonly cookie: string | undefined
    readonly origin: string | undefined
    readonly type: string | undefined
    readonly framing: RawFraming
  }): RawRequest => ({
    method: "POST",
    target,
    headers: headersOf([
      ["content-type", form.type],
      ["cookie", form.cookie],
      ["origin", form.origin]
    ]),
    body: form.body,
    framing: form.framing
  })

export const authorizeGetRequest = (fx: OAuthFixtures): fc.Arbitrary<RawRequest> =>
  fc.record({ query: authorizeQuery(fx), cookie: sessionCookie(fx) }).map(({ query, cookie }) => ({
    method: "GET",
    target: `/authorize${query === "" ? "" : `?${query}`}`,
    headers: headersOf([["cookie", cookie]]),
    body: "",
    framing: { _tag: "length" }
  }))

export const authorizePostRequest = (fx: OAuthFixtures): fc.Arbitrary<RawRequest> =>
  fc
    .record({
      query: authorizeQuery(fx),
      decision: fc.constantFrom("allow", "deny"),
      cookie: sessionCookie(fx),
      origin: ownOrNot(fx.origin),
      type: formType,
      framing
    })
    .chain(({ query, decision, ...rest }) =>
      form([
        ["query", decodeURIComponentSafe(query), hostileString],
        ["csrf", fx.sessionCsrf, hostileString],
        ["decision", decision, hostileString]
      ]).map((body) => ({ body, ...rest }))
    )
    .map(formPost("/authorize"))

/** The generated query string, as the consent form's hidden field holds it (it is encoded again as a form value). */
const decodeURIComponentSafe = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
