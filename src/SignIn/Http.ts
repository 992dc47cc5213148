import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { MAX_PASSWORD_LENGTH } from "../Auth/Passwords.js"
import { publicError } from "../Domain/Errors.js"
import { PublicUrlLive } from "../Http/PublicUrl.js"
import { htmlResponse, messagePage } from "../Ui/Html.js"
import { withoutSessionCookie, withSessionCookie } from "./Cookies.js"
import { csrfMatches, csrfToken, formSite, fromOwnForm, withPreSession } from "./Csrf.js"
import { readForm } from "./Forms.js"
import { signedInPage, signInPage } from "./Page.js"
import { safeReturnTo, signInUrl } from "./ReturnTo.js"
import { Sessions } from "./Sessions.js"
import { THROTTLE_WINDOW_MINUTES } from "./Throttle.js"

const MAX_EMAIL = 320

const PASSWORD_SET = "Your new password is set, and every browser signed in with the old one is signed out."

/** Where sign-in leads when it was not sent from a page: the websites page. */
const HOME = "/sites"

/** 303: after a form POST, the browser follows with a GET (and never re-sends the password). */
const seeOther = (location: string) => HttpServerResponse.redirect(location, { status: 303 })

/**
 * The sign-in page, shared by the OAuth authorization page and the web pages:
 * - `GET /signin[?return_to=/path]`: the form (or, when signed in, straight on to `return_to`, or a page that links
 *   on to the websites);
 * - `POST /signin`: from this site's own form only (its origin, its pre-session token and cookie), checks the e-mail
 *   and password (throttled), opens a session, goes on to `return_to` or else to the websites page;
 * - `POST /signout`: with the session's CSRF token, ends the session.
 */
const SignInRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const { base, secure, origins } = yield* formSite

    /** The form, with the pre-session the browser has (or a new one) in its token and its cookie. */
    const form = (
      request: HttpServerRequest.HttpServerRequest,
      page: Omit<Parameters<typeof signInPage>[0], "csrf">,
      options?: { readonly status: number; readonly headers?: Record<string, string> }
    ) => withPreSession(request, secure, (csrf) => htmlResponse(signInPage({ ...page, csrf }), options))

    yield* router.get(
      "/signin",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const query = new URL(request.url, base).searchParams
        const returnTo = safeReturnTo(query.get("return_to") ?? undefined)
        const session = yield* sessions.current(request)
        if (Option.isSome(session)) {
          return returnTo === undefined
            ? htmlResponse(signedInPage({ email: session.value.user.email, csrf: csrfToken(session.value.token) }))
            : seeOther(returnTo)
        }
        // Where a password reset leads: the form, saying that the new password is set.
        const notice = query.get("reset") === "done" ? PASSWORD_SET : undefined
        return form(request, { returnTo, ...(notice === undefined ? {} : { notice }) })
      })
    )

    yield* router.post(
      "/signin",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const read = yield* readForm(request)
        if (Option.isNone(read)) return messagePage("Sign in", "The form could not be read. Please try again.", 400)
        const fields = read.value
        const returnTo = safeReturnTo(fields.get("return_to"))
        // Another site's page cannot sign this browser in (to an account of its choosing): it can send neither this
        // site's origin nor the token of the browser's pre-session.
        if (!fromOwnForm(request, origins, fields)) {
          const message = "The sign-in form had expired or did not come from this site. Please sign in again."
          return form(request, { returnTo, message }, { status: 403 })
        }
        if (fields.withNul !== undefined) {
          const message = "The e-mail address and the password cannot contain a NUL character."
          return form(request, { returnTo, message }, { status: 422 })
        }
        const email = (fields.get("email") ?? "").trim().slice(0, MAX_EMAIL)
        const password = fields.get("password") ?? ""
        if (email === "" || password === "" || password.length > MAX_PASSWORD_LENGTH) {
          const message = "Enter your e-mail address and your password."
          return form(request, { returnTo, email, message }, { status: 400 })
        }
        const previous = yield* sessions.current(request)
        const outcome = yield* sessions
          .signIn({ email, password, ip: Option.getOrNull(request.remoteAddress) })
          .pipe(Effect.either)
        if (outcome._tag === "Left") {
          if (outcome.left._tag === "Unavailable") {
            const message = "Too many sign-ins are being checked at the moment. Please try again in a second."
            const { headers } = publicError(outcome.left)
            return form(request, { returnTo, email, message }, { status: 503, headers })
          }
          if (outcome.left.reason === "throttled") {
            const message = `Too many failed sign-in attempts. Please wait ${THROTTLE_WINDOW_MINUTES} minutes, then try again.`
            const headers = { "retry-after": String(THROTTLE_WINDOW_MINUTES * 60) }
            return form(request, { returnTo, email, message }, { status: 429, headers })
          }
          const message = "The e-mail address or the password is not right."
          return form(request, { returnTo, email, message }, { status: 401 })
        }
        // A fresh session every time: an earlier one (perhaps planted) is ended.
        if (Option.isSome(previous)) yield* sessions.signOut(previous.value.token)
        return withSessionCookie(seeOther(returnTo ?? HOME), outcome.right, secure)
      })
    )

    yield* router.post(
      "/signout",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const read = yield* readForm(request)
        const returnTo = safeReturnTo(Option.getOrUndefined(read)?.get("return_to"))
        const session = yield* sessions.current(request)
        if (Option.isSome(session)) {
          if (!csrfMatches(session.value.token, Option.getOrUndefined(read)?.get("csrf"))) {
            return messagePage("Sign out", "The form has expired. Go back, reload the page and try again.", 403)
          }
          yield* sessions.signOut(session.value.token)
        }
        return withoutSessionCookie(seeOther(signInUrl(returnTo)), secure)
      })
    )
  })
)

/** The sign-in routes with the services they use. */
export const SignInRoutesLive = SignInRoutes.pipe(Layer.provide(Sessions.Default), Layer.provide(PublicUrlLive))
