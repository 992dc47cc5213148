import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { UnauthorizedBody } from "../Domain/Errors.js"
import { CurrentCredential } from "./CurrentCredential.js"

/**
 * Who is calling: an API key (`Authorization: Bearer <key>`, read first when present, or `X-API-Key`), or, for an
 * agent's tool call answered in process, the signed-in user it runs for. A missing, malformed, unknown or revoked
 * key is a 401, even when the other header holds a valid one.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  failure: UnauthorizedBody,
  provides: CurrentCredential,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Authorization: Bearer <API key>. Read first when present.")
    ),
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "X-API-Key: <API key>.")
    )
  }
}) {}
