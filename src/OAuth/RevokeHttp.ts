import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { clientCredentialsOf, readClientForm } from "./ClientRequests.js"
import { OAuthClients } from "./Clients.js"
import { answeredAsOAuth, invalidRequest, noStoreHeaders } from "./Responses.js"
import { OAuthTokens } from "./Tokens.js"

/**
 * `POST /revoke` (RFC 7009): a client gives up an access or refresh token it holds. It authenticates as at /token.
 * A token that is unknown, expired or already revoked is answered 200 like a revoked one (§2.2): the client cannot
 * do anything better with it. A token issued to another client is refused.
 */
export const revocationEndpoint = Effect.gen(function* () {
  const clients = yield* OAuthClients
  const tokens = yield* OAuthTokens
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const form = yield* readClientForm(request)
    const client = yield* clients.authenticate(yield* clientCredentialsOf(request, form))
    const token = form.get("token")
    if (token === undefined || token === "") return yield* invalidRequest("token is required.")
    // token_type_hint may be sent; the token's own prefix says what it is, so the hint changes nothing.
    yield* tokens.revoke({ client, token })
    return HttpServerResponse.empty({ status: 200, headers: noStoreHeaders })
  }).pipe(answeredAsOAuth("Revocation request"))
})
