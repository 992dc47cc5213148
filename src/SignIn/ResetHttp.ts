import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { publicError } from "../Domain/Errors.js"
import { PublicUrlLive } from "../Http/PublicUrl.js"
import { htmlResponse } from "../Ui/Html.js"
import { formSite, fromOwnForm, withPreSession } from "./Csrf.js"
import { readForm } from "./Forms.js"
import { PasswordResets, RESET_MINUTES } from "./PasswordResets.js"
import { forgotPage, newPasswordPage, noMailPage, refusedLinkPage, sentPage } from "./ResetPages.js"
import { THROTTLE_WINDOW_MINUTES } from "./Throttle.js"

const MAX_EMAIL = 320
const MAX_TOKEN = 200

/** 303: after a form POST, the browser follows with a GET, and a reload never sends the form again. */
const seeOther = (location: string) => HttpServerResponse.redirect(location, { status: 303 })

const STALE_FORM = "The form had expired or did not come from this site. Please try again."

/**
 * "Forgot your password?" (see `PasswordResets`), beside the sign-in page and protected like it (this site's origin,
 * the pre-session's token and cookie, sent only to `/signin…`):
 * - `GET /signin/forgot`: the e-mail form, or without `SMTP_URL` a page that says to ask the operator;
 * - `POST /signin/forgot`: asks for the mail (throttled), then on to `GET /signin/forgot/sent`, the same page
 *   whatever the e-mail;
 * - `GET /signin/reset?token=…`: the link of the mail: a new password's form, or why the link does not work;
 * - `POST /signin/reset`: sets the password once, then on to the sign-in form, which says so.
 */
const ResetRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const resets = yield* PasswordResets
    const { base, secure, origins } = yield* formSite

    const forgotForm = (
      request: HttpServerRequest.HttpServerRequest,
      page: { readonly email?: string; readonly message?: string } = {},
      options?: { readonly status: number; readonly headers?: Record<string, string> }
    ) =>
      withPreSession(request, secure, (csrf) =>
        htmlResponse(forgotPage({ ...page, csrf, minutes: RESET_MINUTES }), options)
      )

    const passwordForm = (
      request: HttpServerRequest.HttpServerRequest,
      page: { readonly token: string; readonly email: string; readonly message?: string },
      options?: { readonly status: number; readonly headers?: Record<string, string> }
    ) => withPreSession(request, secure, (csrf) => htmlResponse(newPasswordPage({ ...page, csrf }), options))

    const refused = (reason: "unknown" | "expired" | "used") =>
      htmlResponse(refusedLinkPage(reason), { status: reason === "unknown" ? 404 : 410 })

    yield* router.get(
      "/signin/forgot",
      Effect.gen(function* () {
        if (!resets.enabled) return htmlResponse(noMailPage())
        return forgotForm(yield* HttpServerRequest.HttpServerRequest)
      })
    )

    yield* router.get("/signin/forgot/sent", Effect.succeed(htmlResponse(sentPage({ minutes: RESET_MINUTES }))))

    yield* router.post(
      "/signin/forgot",
      Effect.gen(function* () {
        if (!resets.enabled) return seeOther("/signin/forgot")
        const request = yield* HttpServerRequest.HttpServerRequest
        const read = yield* readForm(request)
        if (Option.isNone(read) || !fromOwnForm(request, origins, read.value)) {
          return forgotForm(request, { message: STALE_FORM }, { status: 403 })
        }
        const fields = read.value
        const email = (fields.get("email") ?? "").trim()
        if (fields.withNul !== undefined || email === "" || email.length > MAX_EMAIL) {
          const message = "Enter the e-mail address of your account."
          return forgotForm(request, { email: email.slice(0, MAX_EMAIL), message }, { status: 400 })
        }
        const asked = yield* resets.request({ email, ip: Option.getOrNull(request.remoteAddress) }).pipe(Effect.either)
        if (asked._tag === "Left") {
          const message = `Too many reset links were asked for. Please wait ${THROTTLE_WINDOW_MINUTES} minutes, then try again.`
          const headers = { "retry-after": String(THROTTLE_WINDOW_MINUTES * 60) }
          return forgotForm(request, { email, message }, { status: 429, headers })
        }
        return seeOther("/signin/forgot/sent")
      })
    )

    yield* router.get(
      "/signin/reset",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = (new URL(request.url, base).searchParams.get("token") ?? "").slice(0, MAX_TOKEN)
        const link = yield* resets.check(token).pipe(Effect.either)
        if (link._tag === "Left") return refused(link.left.reason)
        return passwordForm(request, { token, email: link.right.email })
      })
    )

    yield* router.post(
      "/signin/reset",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const fields = Option.getOrUndefined(yield* readForm(request))
        const token = (fields?.get("token") ?? "").slice(0, MAX_TOKEN)
        const link = yield* resets.check(token).pipe(Effect.either)
        if (link._tag === "Left") return refused(link.left.reason)
        const again = (message: string, status: number, headers: Record<string, string> = {}) =>
          passwordForm(request, { token, email: link.right.email, message }, { status, headers })
        if (fields === undefined || !fromOwnForm(request, origins, fields)) return again(STALE_FORM, 403)
        const password = fields.get("password") ?? ""
        if (fields.withNul !== undefined) return again("A password cannot contain a NUL character.", 422)
        if (password !== fields.get("repeat")) {
          return again("The two passwords are not the same. Type the new password twice.", 422)
        }
        const done = yield* resets.complete(link.right, password).pipe(Effect.either)
        if (done._tag === "Right") return seeOther("/signin?reset=done")
        switch (done.left._tag) {
          case "ResetLinkRefused":
            return refused(done.left.reason)
          case "NewPasswordRefused":
            return again(`The new password was not set: ${done.left.problem}.`, 422)
          case "Unavailable": {
            const message = "Too many passwords are being checked at the moment. Please try again in a second."
            return again(message, 503, publicError(done.left).headers)
          }
        }
      })
    )
  })
)

/** The password reset routes with the services they use. */
export const ResetRoutesLive = ResetRoutes.pipe(Layer.provide(PasswordResets.Default), Layer.provide(PublicUrlLive))
