import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { isFormRequest, readForm } from "../SignIn/Forms.js"
import { OAuthClients } from "./Clients.js"
import { corsJson, invalidClient, invalidRequest, noStoreHeaders, OAuthError, oauthErrorResponse } from "./Responses.js"
import { OAuthTokens } from "./Tokens.js"

const basicPattern = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i

/** `Authorization: Basic` client credentials (RFC 6749 §2.3.1: each part form-urlencoded), if sent. */
const basicCredentials = (header: string | undefined) => {
  if (header === undefined || !/^Basic\b/i.test(header)) return Option.none()
  const match = basicPattern.exec(header)
  const decoded = match === null ? "" : Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon === -1) return Option.some(Option.none<{ readonly id: string; readonly secret: string }>())
  try {
    const decodePart = (part: string) => decodeURIComponent(part.replace(/\+/g, " "))
    return Option.some(
      Option.some({ id: decodePart(decoded.slice(0, colon)), secret: decodePart(decoded.slice(colon + 1)) })
    )
  } catch {
    return Option.some(Option.none<{ readonly id: string; readonly secret: string }>())
  }
}

/**
 * `POST /token` (RFC 6749 §3.2): the authorization_code and refresh_token grants. Every answer is JSON, never
 * cached; errors are OAuth errors (400, or 401 for invalid_client), never HTML.
 */
export const tokenEndpoint = (serverResource: string) =>
  Effect.gen(function* () {
    const clients = yield* OAuthClients
    const tokens = yield* OAuthTokens
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!isFormRequest(request)) {
        return yield* invalidRequest("The body must be application/x-www-form-urlencoded.")
      }
      const read = yield* readForm(request)
      if (Option.isNone(read)) return yield* invalidRequest("The body could not be read.")
      const form = read.value
      if (form.duplicates.length > 0) return yield* invalidRequest(`${form.duplicates[0]} is given more than once.`)
      if (form.withNul !== undefined) return yield* invalidRequest(`${form.withNul} must not contain NUL (U+0000).`)
      const grantType = form.get("grant_type")
      if (grantType === undefined) return yield* invalidRequest("grant_type is required.")
      if (grantType !== "authorization_code" && grantType !== "refresh_token") {
        return yield* new OAuthError({
          error: "unsupported_grant_type",
          description: "Only authorization_code and refresh_token are supported."
        })
      }
      const basic = basicCredentials(request.headers["authorization"])
      if (Option.isSome(basic) && Option.isNone(basic.value)) {
        return yield* invalidClient("The Authorization header does not hold valid Basic credentials.")
      }
      const fromHeader = Option.flatten(basic)
      const bodyId = form.get("client_id")
      if (Option.isSome(fromHeader) && form.get("client_secret") !== undefined) {
        return yield* invalidRequest("Send the client secret either in the Authorization header or in the body.")
      }
      if (Option.isSome(fromHeader) && bodyId !== undefined && bodyId !== fromHeader.value.id) {
        return yield* invalidRequest("client_id differs from the one in the Authorization header.")
      }
      const client = yield* clients.authenticate(
        Option.match(fromHeader, {
          onSome: ({ id, secret }) => ({ clientId: id, clientSecret: secret }),
          onNone: () => ({ clientId: bodyId, clientSecret: form.get("client_secret") })
        })
      )
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
      return corsJson(issued, { headers: noStoreHeaders })
    }).pipe(
      Effect.catchTag("OAuthError", (error) => Effect.succeed(oauthErrorResponse(error))),
      Effect.catchAllDefect((defect) =>
        Effect.logError("Token request failed", defect).pipe(
          Effect.as(
            oauthErrorResponse(
              new OAuthError({ error: "server_error", description: "Something went wrong on our side.", status: 500 })
            )
          )
        )
      )
    )
  })
