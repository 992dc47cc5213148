import { HttpServerResponse } from "@effect/platform"
import { Duration } from "effect"

export const SESSION_COOKIE = "cbs_session"
/** How long a session lasts, in the database and in the browser. */
export const SESSION_SECONDS = 14 * 24 * 60 * 60
/** The sign-in form's cookie, set before anyone signs in: its CSRF token is derived from it. */
export const PRE_SESSION_COOKIE = "cbs_signin"

const cookieOptions = (secure: boolean, path: string, seconds?: number) => ({
  httpOnly: true,
  sameSite: "lax" as const,
  path,
  secure,
  ...(seconds === undefined ? {} : { maxAge: Duration.seconds(seconds) })
})

/** Sets the session cookie on a response; `secure` when the service is reached over https. */
export const withSessionCookie = (response: HttpServerResponse.HttpServerResponse, token: string, secure: boolean) =>
  HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, token, cookieOptions(secure, "/", SESSION_SECONDS))

/** Removes the session cookie from the browser. */
export const withoutSessionCookie = (response: HttpServerResponse.HttpServerResponse, secure: boolean) =>
  HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, "", cookieOptions(secure, "/", 0))

/**
 * Sets the pre-session cookie: sent only to the sign-in address, kept until the browser closes (a form left open
 * for an afternoon still works), never readable by scripts.
 */
export const withPreSessionCookie = (
  response: HttpServerResponse.HttpServerResponse,
  preSession: string,
  secure: boolean
) => HttpServerResponse.unsafeSetCookie(response, PRE_SESSION_COOKIE, preSession, cookieOptions(secure, "/signin"))
