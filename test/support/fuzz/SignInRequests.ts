import fc from "fast-check"
import { hostileString, rarely, shortHostileString } from "./Hostile.js"
import { asHeaderValue, form, formText, formType, framing, headersOf, pick, queryValue } from "./HostileHttp.js"
import { formPost, ownOrNot } from "./OAuthRequests.js"
import type { RawRequest } from "./RawHttp.js"

// Requests to the sign-in form: GET and POST /signin, POST /signout.

export interface SignInFixtures {
  readonly email: string
  readonly password: string
  /** The sign-in form's pre-session cookie value and the CSRF token tied to it. */
  readonly preSession: string
  readonly csrf: string
  readonly sessionCookie: string
  readonly sessionCsrf: string
  readonly origin: string
}

const returnTo = pick(
  ["/sites", "//evil.example", "/\\evil.example", "https://evil.example/", "/a/../..//evil.example", "/sites/€"],
  hostileString
)

export const signInPageRequest = (fx: SignInFixtures): fc.Arbitrary<RawRequest> =>
  fc
    .record({
      returnTo: rarely(2, queryValue(returnTo)),
      cookie: rarely(2, fc.constantFrom(`cbs_signin=${fx.preSession}`, `cbs_session=${fx.sessionCookie}`))
    })
    .map(({ returnTo, cookie }) => ({
      method: "GET",
      target: `/signin${returnTo === undefined ? "" : `?return_to=${returnTo}`}`,
      headers: headersOf([["cookie", cookie]]),
      body: "",
      framing: { _tag: "length" }
    }))

export const signInPostRequest = (fx: SignInFixtures): fc.Arbitrary<RawRequest> =>
  fc
    .record({
      body: form([
        ["email", fx.email, pick([fx.email.toUpperCase(), ` ${fx.email} `, "nobody@example.com"], hostileString)],
        ["password", fx.password, pick(["wrong", "p".repeat(1025)], hostileString)],
        ["return_to", "/sites", returnTo],
        ["csrf", fx.csrf, pick([fx.sessionCsrf], hostileString)]
      ]),
      cookie: fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>(`cbs_signin=${fx.preSession}`) },
        fc.constant(undefined),
        fc.constant(`cbs_signin=${fx.preSession}; cbs_session=${fx.sessionCookie}`),
        fc.constant(`cbs_signin=cbs_p_${"x".repeat(300)}`),
        shortHostileString.map((junk) => asHeaderValue(`cbs_signin=${junk}`))
      ),
      origin: ownOrNot(fx.origin),
      type: formType,
      framing
    })
    .map(formPost("/signin"))

export const signOutRequest = (fx: SignInFixtures): fc.Arbitrary<RawRequest> =>
  fc
    .record({
      form: formText([
        ["csrf", pick([fx.sessionCsrf], hostileString)],
        ["return_to", returnTo]
      ]),
      cookie: fc.oneof(fc.constant<string | undefined>(undefined), fc.constant(`cbs_session=cbs_s_${"0".repeat(40)}`)),
      type: formType
    })
    .map(({ form, cookie, type }) => ({
      method: "POST",
      target: "/signout",
      headers: headersOf([
        ["content-type", type],
        ["cookie", cookie]
      ]),
      body: form,
      framing: { _tag: "length" }
    }))
