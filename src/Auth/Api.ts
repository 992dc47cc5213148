import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { RateLimitedBody, UnauthorizedBody } from "../Domain/Errors.js"
import { CurrentCredential } from "./CurrentCredential.js"

/**
 * API-key authentication, and the per-credential request limit (429 rate_limited) that every authenticated
 * request counts against. Both schemes are documented; whichever is used, `Authorization` is read first when
 * present (a malformed or unknown one is a 401 even if `X-API-Key` is also sent).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  failure: Schema.Union(UnauthorizedBody, RateLimitedBody),
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
