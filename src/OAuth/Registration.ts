import { Either } from "effect"
import { oneLineProblem } from "../Domain/Text.js"
import { redirectUriProblem } from "./RedirectUris.js"
import { OAuthError } from "./Responses.js"

export type TokenEndpointAuthMethod = "none" | "client_secret_post" | "client_secret_basic"

/** The client metadata the service keeps (RFC 7591 §2), after defaults. */
export interface ClientMetadata {
  readonly client_name: string | null
  readonly redirect_uris: ReadonlyArray<string>
  readonly grant_types: ReadonlyArray<string>
  readonly response_types: ReadonlyArray<string>
  readonly token_endpoint_auth_method: TokenEndpointAuthMethod
}

const MAX_REDIRECT_URIS = 20
const MAX_NAME_LENGTH = 200
const grantTypes = new Set(["authorization_code", "refresh_token"])
const authMethods = new Set<string>(["none", "client_secret_post", "client_secret_basic"])

const invalidMetadata = (description: string) => new OAuthError({ error: "invalid_client_metadata", description })
const invalidRedirectUri = (description: string) => new OAuthError({ error: "invalid_redirect_uri", description })

/** The fields read here besides redirect_uris (whose own check names a NUL as a character not allowed in a URI). */
const textFields = ["client_name", "grant_types", "response_types", "token_endpoint_auth_method"]

/**
 * A NUL in a string, or in a string item of an array (the shapes these fields may have). Nothing deeper is looked
 * at: a body nested any deeper is refused by the shape checks that follow, and recursing into it would overflow
 * the stack (JSON nested 100,000 deep parses fine).
 */
const holdsNul = (value: unknown): boolean =>
  typeof value === "string"
    ? value.includes("\0")
    : Array.isArray(value) && value.some((item) => typeof item === "string" && item.includes("\0"))

const isStringArray = (u: unknown): u is ReadonlyArray<string> =>
  Array.isArray(u) && u.every((item) => typeof item === "string")

const stringList = (body: Record<string, unknown>, field: string, fallback: ReadonlyArray<string>) => {
  const value = body[field]
  if (value === undefined || value === null) return Either.right(fallback)
  return isStringArray(value) && value.length > 0
    ? Either.right([...new Set(value)])
    : Either.left(invalidMetadata(`${field} must be a non-empty array of strings.`))
}

/**
 * Validates a registration request. Redirect URI problems are `invalid_redirect_uri`, anything else
 * `invalid_client_metadata`. Unknown fields are ignored; omitted grant types default to both supported ones.
 */
export const parseRegistration = (body: unknown): Either.Either<ClientMetadata, OAuthError> =>
  Either.gen(function* () {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* Either.left(invalidMetadata("The request body must be a JSON object of client metadata."))
    }
    const fields = body as Record<string, unknown>
    const uris = fields["redirect_uris"]
    if (!isStringArray(uris) || uris.length === 0) {
      return yield* Either.left(invalidRedirectUri("redirect_uris must be a non-empty array of URI strings."))
    }
    if (uris.length > MAX_REDIRECT_URIS) {
      return yield* Either.left(invalidRedirectUri(`At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`))
    }
    for (const uri of uris) {
      const problem = redirectUriProblem(uri)
      if (problem !== undefined) {
        return yield* Either.left(invalidRedirectUri(`Redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}.`))
      }
    }
    const withNul = textFields.find((field) => holdsNul(fields[field]))
    if (withNul !== undefined) return yield* Either.left(invalidMetadata(`${withNul} must not contain NUL (U+0000).`))
    const name = fields["client_name"]
    if (name !== undefined && name !== null && typeof name !== "string") {
      return yield* Either.left(invalidMetadata("client_name must be a string."))
    }
    // The name is shown on the consent page and the connection page: one line, read as written (Domain/Text.ts).
    const nameProblem = typeof name === "string" ? oneLineProblem(name) : undefined
    if (nameProblem !== undefined) return yield* Either.left(invalidMetadata(`client_name ${nameProblem}.`))
    const clientName = typeof name === "string" ? name.trim() : ""
    if (clientName.length > MAX_NAME_LENGTH) {
      return yield* Either.left(invalidMetadata(`client_name must be at most ${MAX_NAME_LENGTH} characters.`))
    }
    const grants = yield* stringList(fields, "grant_types", ["authorization_code", "refresh_token"])
    if (!grants.every((grant) => grantTypes.has(grant)) || !grants.includes("authorization_code")) {
      return yield* Either.left(
        invalidMetadata("grant_types must include authorization_code and may add only refresh_token.")
      )
    }
    const responses = yield* stringList(fields, "response_types", ["code"])
    if (!responses.every((type) => type === "code")) {
      return yield* Either.left(invalidMetadata('response_types may only contain "code".'))
    }
    // RFC 7591 §2: the default method is client_secret_basic; MCP clients register as public clients ("none").
    const method = fields["token_endpoint_auth_method"] ?? "client_secret_basic"
    if (typeof method !== "string" || !authMethods.has(method)) {
      return yield* Either.left(
        invalidMetadata("token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.")
      )
    }
    return {
      client_name: clientName === "" ? null : clientName,
      redirect_uris: [...new Set(uris)],
      grant_types: grants,
      response_types: responses,
      token_endpoint_auth_method: method as TokenEndpointAuthMethod
    }
  })
