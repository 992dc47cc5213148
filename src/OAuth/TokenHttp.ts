import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { clientCredentialsOf, readClientForm } from "./ClientRequests.js"
import { OAuthClients } from "./Clients.js"
import { answeredAsOAuth, invalidRequest, noStoreHeaders, OAuthError, oauthJson } from "./Responses.js"
import { OAuthTokens } from "./Tokens.js"

/**
 * `POST /token` (RFC 6749 §3.2): the authorization_code and refresh_token grants, for the resource named after the
 * base URL the request used. Every answer is JSON, never
 * cached; errors are OAuth errors (400, or 401 for invalid_client), never HTML.
 */
export const tokenEndpoint = (resourceOf: (request: HttpServerRequest.HttpServerRequest) => string) =>
  Effect.gen(function* () {
    const clients = yield* OAuthClients
    const tokens = yield* OAuthTokens
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const serverResource = resourceOf(request)
      const form = yield* readClientForm(request)
      const grantType = form.get("grant_type")
      if (grantType === undefined) return yield* invalidRequest("grant_type is required.")
      if (grantType !== "authorization_code" && grantType !== "refresh_token") {
        return yield* new OAuthError({
          error: "unsupported_grant_type",
          description: "Only authorization_code and refresh_token are supported."
        })
      }
      const client = yield* clients.authenticate(yield* clientCredentialsOf(request, form))
      const issued =
        grantType === "authorization_code"
          ? yield* tokens.exchangeCode({
              client,
              code: form.get("code"),
              redirectUri: form.get("redirect_uri"),
              codeVerifier: form.get("code_verifier"),
              resource: form.get("resource"),
              serverResource
            })
          : yield* tokens.refresh({
              client,
              refreshToken: form.get("refresh_token"),
              scope: form.get("scope"),
              resource: form.get("resource"),
              serverResource
            })
      return oauthJson(issued, { headers: noStoreHeaders })
    }).pipe(answeredAsOAuth("Token request"))
  })
