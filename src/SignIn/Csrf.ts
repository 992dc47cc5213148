import { timingSafeEqual } from "node:crypto"
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { hashSecret, newSecret } from "../Auth/Secrets.js"
import { ownOrigins } from "../Http/Origins.js"
import { PublicUrl } from "../Http/PublicUrl.js"
import { PRE_SESSION_COOKIE, withPreSessionCookie } from "./Cookies.js"
import type { Form } from "./Forms.js"

const PRE_SESSION_PREFIX = "cbs_p_"

/**
 * The CSRF token of a secret: a session's (for the forms of signed-in pages) or a pre-session's (for the sign-in
 * form). Derived from the secret, so it is bound to its cookie and never stored; another site can read neither.
 */
export const csrfToken = (secret: string): string => Buffer.from(hashSecret(`csrf:${secret}`)).toString("base64url")

/** Whether a submitted CSRF token is the secret's; constant time. */
export const csrfMatches = (secret: string, submitted: string | undefined): boolean => {
  if (submitted === undefined) return false
  const expected = Buffer.from(csrfToken(secret))
  const given = Buffer.from(submitted)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** A new pre-session: the secret of the sign-in form's cookie. */
export const newPreSession = (): string => newSecret(PRE_SESSION_PREFIX)

/** The pre-session a request's cookie carries, if it is one of ours. */
export const preSessionOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[PRE_SESSION_COOKIE]
  return value?.startsWith(PRE_SESSION_PREFIX) && value.length <= 200 ? value : undefined
}

/**
 * Whether a form POST may come from this service's own pages, by its `Origin` header: one of `origins`, or no header
 * at all (older browsers, other clients), which leaves the decision to the CSRF token. `null` is not ours.
 */
export const fromOwnOrigin = (request: HttpServerRequest.HttpServerRequest, origins: ReadonlyArray<string>) => {
  const origin = request.headers["origin"]
  return origin === undefined || origins.includes(origin)
}

/**
 * Whether a form POST of a page without a session (sign-in, password reset) comes from this site's own page: from its
 * origin (or none), with the token of the pre-session whose cookie the browser sends.
 */
export const fromOwnForm = (
  request: HttpServerRequest.HttpServerRequest,
  origins: ReadonlyArray<string>,
  form: Form
): boolean => {
  const preSession = preSessionOf(request)
  return fromOwnOrigin(request, origins) && preSession !== undefined && csrfMatches(preSession, form.get("csrf"))
}

/** A page with a form of `fromOwnForm`'s kind: rendered with the token of the browser's pre-session, or of a new one. */
export const withPreSession = (
  request: HttpServerRequest.HttpServerRequest,
  secure: boolean,
  render: (csrf: string) => HttpServerResponse.HttpServerResponse
) => {
  const preSession = preSessionOf(request) ?? newPreSession()
  return withPreSessionCookie(render(csrfToken(preSession)), preSession, secure)
}

/**
 * This service's address as its form pages need it: the base URL, whether cookies are `Secure` (an https base) and
 * the origins a form POST may come from.
 */
export const formSite = Effect.map(PublicUrl, (base) => ({
  base,
  secure: base.startsWith("https:"),
  origins: ownOrigins(base)
}))
