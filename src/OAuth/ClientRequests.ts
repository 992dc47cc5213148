import type { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { type Form, isFormRequest, readForm } from "../SignIn/Forms.js"
import type { ClientCredentials } from "./Clients.js"
import { invalidClient, invalidRequest, type OAuthError } from "./Responses.js"

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
 * The form body of a request to /token or /revoke (RFC 6749 §3.2, RFC 7009 §2.1): URL-encoded, each field once, no
 * NUL anywhere.
 */
export const readClientForm = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Form, OAuthError> =>
  Effect.gen(function* () {
    if (!isFormRequest(request)) return yield* invalidRequest("The body must be application/x-www-form-urlencoded.")
    const read = yield* readForm(request)
    if (Option.isNone(read)) return yield* invalidRequest("The body could not be read.")
    const form = read.value
    if (form.duplicates.length > 0) return yield* invalidRequest(`${form.duplicates[0]} is given more than once.`)
    if (form.withNul !== undefined) return yield* invalidRequest(`${form.withNul} must not contain NUL (U+0000).`)
    return form
  })

/**
 * How the client identified itself (RFC 6749 §2.3): with `Authorization: Basic` (client_secret_basic), with
 * `client_secret` in the body (client_secret_post), or by `client_id` alone (none). The client is then held to the
 * method it registered.
 */
export const clientCredentialsOf = (
  request: HttpServerRequest.HttpServerRequest,
  form: Form
): Effect.Effect<ClientCredentials, OAuthError> =>
  Effect.gen(function* () {
    const basic = basicCredentials(request.headers["authorization"])
    if (Option.isSome(basic) && Option.isNone(basic.value)) {
      return yield* invalidClient("The Authorization header does not hold valid Basic credentials.")
    }
    const bodyId = form.get("client_id")
    const bodySecret = form.get("client_secret")
    const fromHeader = Option.flatten(basic)
    if (Option.isSome(fromHeader)) {
      const { id, secret } = fromHeader.value
      if (bodySecret !== undefined) {
        return yield* invalidRequest("Send the client secret either in the Authorization header or in the body.")
      }
      if (bodyId !== undefined && bodyId !== id) {
        return yield* invalidRequest("client_id differs from the one in the Authorization header.")
      }
      return { clientId: id, clientSecret: secret, method: "client_secret_basic" }
    }
    return bodySecret === undefined || bodySecret === ""
      ? { clientId: bodyId, clientSecret: undefined, method: "none" }
      : { clientId: bodyId, clientSecret: bodySecret, method: "client_secret_post" }
  })
