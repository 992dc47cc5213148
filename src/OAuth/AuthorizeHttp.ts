import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { csrfMatches, csrfToken } from "../SignIn/Csrf.js"
import { queryOf, readForm } from "../SignIn/Forms.js"
import { signInUrl } from "../SignIn/ReturnTo.js"
import { Sessions } from "../SignIn/Sessions.js"
import { type AuthorizeCheck, authorizationResponseUrl, checkAuthorize } from "./Authorize.js"
import { OAuthClients } from "./Clients.js"
import { mcpResource } from "./Metadata.js"
import { authorizeErrorPage, consentPage } from "./Pages.js"
import { READ_AND_EDIT, READ_ONLY } from "./Scopes.js"
import { OAuthTokens } from "./Tokens.js"

/** The authorization response goes back to the client with a plain 302 (RFC 6749 §4.1.2). */
const found = (location: string) =>
  HttpServerResponse.redirect(location, { status: 302, headers: { "cache-control": "no-store" } })

/**
 * `GET /authorize` shows the consent page (after sign-in); `POST /authorize` is that page's Allow / Deny. Both
 * validate the whole request from scratch.
 */
/** The scope a consent form grants: "read" or "edit" as chosen, else what the client asked for. */
const accessOf = (access: string | undefined, requestsWrite: boolean) =>
  access === "read" ? READ_ONLY : access === "edit" || requestsWrite ? READ_AND_EDIT : READ_ONLY

export const authorizeEndpoints = (baseOf: (request: HttpServerRequest.HttpServerRequest) => string) =>
  Effect.gen(function* () {
    const clients = yield* OAuthClients
    const tokens = yield* OAuthTokens
    const sessions = yield* Sessions

    const check = (query: string, base: string) => checkAuthorize(query, mcpResource(base), clients.find)
    const redirectError = (check: Extract<AuthorizeCheck, { _tag: "ErrorRedirect" }>, base: string) =>
      found(
        authorizationResponseUrl(check.redirectLocation, base, check.state, {
          error: check.error,
          error_description: check.description
        })
      )
    const toSignIn = (query: string) => HttpServerResponse.redirect(signInUrl(`/authorize?${query}`), { status: 303 })

    const show = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const base = baseOf(request)
      const checked = yield* check(queryOf(request.url), base)
      if (checked._tag === "ErrorPage") return authorizeErrorPage(checked.message)
      if (checked._tag === "ErrorRedirect") return redirectError(checked, base)
      const authorize = checked.request
      const session = yield* sessions.current(request)
      const fail = (error: string, description: string) =>
        found(
          authorizationResponseUrl(authorize.redirectLocation, base, authorize.state, {
            error,
            error_description: description
          })
        )
      if (Option.isNone(session)) {
        return authorize.promptNone ? fail("login_required", "The user is not signed in.") : toSignIn(authorize.query)
      }
      // Consent is asked every time, so a request that forbids pages cannot be granted.
      if (authorize.promptNone) return fail("consent_required", "The user must allow the application.")
      return consentPage({
        request: authorize,
        email: session.value.user.email,
        csrf: csrfToken(session.value.token)
      })
    })

    const decide = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const base = baseOf(request)
      const form = yield* readForm(request)
      const query = Option.getOrUndefined(form)?.get("query")
      if (Option.isNone(form) || query === undefined) return authorizeErrorPage("The form could not be read.")
      const checked = yield* check(query, base)
      if (checked._tag === "ErrorPage") return authorizeErrorPage(checked.message)
      if (checked._tag === "ErrorRedirect") return redirectError(checked, base)
      const authorize = checked.request
      const session = yield* sessions.current(request)
      if (Option.isNone(session)) return toSignIn(authorize.query)
      if (!csrfMatches(session.value.token, form.value.get("csrf"))) {
        return authorizeErrorPage("The form has expired or did not come from this site. Go back and try again.", 403)
      }
      const respond = (params: Record<string, string>) =>
        found(authorizationResponseUrl(authorize.redirectLocation, base, authorize.state, params))
      const decision = form.value.get("decision")
      if (decision === "deny") {
        return respond({ error: "access_denied", error_description: "The user denied access." })
      }
      if (decision !== "allow") return authorizeErrorPage("Choose Allow or Deny.")
      const code = yield* tokens.createCode({
        clientId: authorize.client.client_id,
        userId: session.value.user.user_id,
        redirectUri: authorize.redirectUri,
        redirectUriGiven: authorize.redirectUriGiven,
        codeChallenge: authorize.codeChallenge,
        resource: authorize.resource,
        // The person's choice on the consent page; a form without one keeps what the client asked for.
        scope: accessOf(form.value.get("access"), authorize.requestsWrite)
      })
      return respond({ code })
    })

    return { show, decide }
  })
