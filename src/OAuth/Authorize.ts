import { Effect, Either, Option } from "effect"
import { formOf } from "../SignIn/Forms.js"
import type { ClientRow } from "./ClientsRepo.js"
import type { ClientDocumentRefused } from "./MetadataDocuments.js"
import { isS256Challenge } from "./Pkce.js"
import { matchesRegistered, redirectLocation } from "./RedirectUris.js"
import { allowsWrite } from "./Scopes.js"

/** A validated authorization request. */
export interface AuthorizeRequest {
  readonly client: ClientRow
  readonly redirectUri: string
  /** Whether the client asked to change articles (`content:write`): the consent page then offers "Read and edit" first. */
  readonly requestsWrite: boolean
  /** The redirect URI as the authorization response's `Location` (see `redirectLocation`). */
  readonly redirectLocation: string
  /** Whether the request named the redirect URI (else the client's only registered one is used). */
  readonly redirectUriGiven: boolean
  readonly codeChallenge: string
  readonly state: string | undefined
  readonly resource: string | null
  /** `prompt=none`: the client asks not to show any page. */
  readonly promptNone: boolean
  /** The query string as received: carried through sign-in and consent, and validated again there. */
  readonly query: string
}

/** The outcome of checking an authorization request (RFC 6749 §4.1.2.1). */
export type AuthorizeCheck =
  /** The client or redirect URI cannot be trusted: the user sees an error page, nothing is redirected. */
  | { readonly _tag: "ErrorPage"; readonly message: string }
  /** Anything else wrong: sent back to the (validated) redirect URI. */
  | {
      readonly _tag: "ErrorRedirect"
      readonly redirectLocation: string
      readonly state: string | undefined
      readonly error: string
      readonly description: string
    }
  | { readonly _tag: "Valid"; readonly request: AuthorizeRequest }

const errorPage = (message: string): AuthorizeCheck => ({ _tag: "ErrorPage", message })

/**
 * The longest `state` a client may send. It comes back in the redirect's query, and a redirect longer than clients,
 * browsers and proxies take (about 8 KiB of request line) reaches no one; a client needs far less to find its request.
 */
export const MAX_STATE_LENGTH = 2_048

/** Parameters that may appear only once (RFC 6749 §3.1). */
const singleValued = ["response_type", "code_challenge", "code_challenge_method", "scope", "state", "prompt"]

/**
 * Checks an authorization request's query string. The client and redirect URI come first: until both are known
 * good, problems are shown to the user rather than redirected. `serverResource` is the only resource (RFC 8707)
 * tokens are issued for.
 */
export const checkAuthorize = (
  query: string,
  serverResource: string,
  findClient: (clientId: string) => Effect.Effect<Option.Option<ClientRow>, ClientDocumentRefused>
): Effect.Effect<AuthorizeCheck> =>
  Effect.gen(function* () {
    const params = new URLSearchParams(query)
    const form = formOf(params)
    const clientId = form.get("client_id")
    if (clientId === undefined || clientId === "") return errorPage("The request does not name a client (client_id).")
    if (form.duplicates.includes("client_id")) return errorPage("The request names client_id more than once.")
    const lookedUp = yield* Effect.either(findClient(clientId))
    if (Either.isLeft(lookedUp)) return errorPage(lookedUp.left.message)
    const found = lookedUp.right
    if (Option.isNone(found)) {
      return errorPage("The application is not registered here. Ask it to connect again from the start.")
    }
    const client = found.value
    const requested = form.get("redirect_uri")
    if (form.duplicates.includes("redirect_uri")) return errorPage("The request names redirect_uri more than once.")
    const onlyRegistered = client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined
    const redirectUri = requested ?? onlyRegistered
    if (redirectUri === undefined) return errorPage("The request does not say where to return (redirect_uri).")
    if (requested !== undefined && !matchesRegistered(client.redirect_uris, requested)) {
      return errorPage("The return address (redirect_uri) is not one the application registered.")
    }
    // Known before anything is stored: a response that could not be sent must not leave a code behind.
    const location = redirectLocation(redirectUri)
    if (location === undefined) return errorPage("The return address (redirect_uri) cannot be used.")

    const state = form.get("state")
    const failEchoing =
      (echoed: string | undefined) =>
      (error: string, description: string): AuthorizeCheck => ({
        _tag: "ErrorRedirect",
        redirectLocation: location,
        state: echoed,
        error,
        description
      })
    const fail = failEchoing(state)
    const repeated = singleValued.find((name) => form.duplicates.includes(name))
    if (repeated !== undefined) return fail("invalid_request", `${repeated} is given more than once.`)
    if (form.withNul !== undefined) return fail("invalid_request", `${form.withNul} must not contain NUL (U+0000).`)
    if (state !== undefined && state.length > MAX_STATE_LENGTH) {
      // Not echoed: the oversized value is the fault, and carrying it back would make the redirect unusable.
      return failEchoing(undefined)("invalid_request", `state must be at most ${MAX_STATE_LENGTH} characters.`)
    }
    const responseType = form.get("response_type")
    if (responseType === undefined) return fail("invalid_request", "response_type is required.")
    if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported.")
    const challenge = form.get("code_challenge")
    if (challenge === undefined || challenge === "") {
      return fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256.")
    }
    if (form.get("code_challenge_method") !== "S256") {
      return fail("invalid_request", "code_challenge_method must be S256.")
    }
    if (!isS256Challenge(challenge)) return fail("invalid_request", "code_challenge is not an S256 challenge.")
    const resources = params.getAll("resource")
    if (resources.some((resource) => resource !== serverResource)) {
      return fail("invalid_target", `This server issues tokens only for ${serverResource}.`)
    }
    // Scopes: content:read, and content:write when the person allows editing; what is granted is their choice on
    // the consent page, whatever was asked for (RFC 6749 §3.3).
    return {
      _tag: "Valid",
      request: {
        client,
        redirectUri,
        requestsWrite: allowsWrite(form.get("scope")),
        redirectLocation: location,
        redirectUriGiven: requested !== undefined,
        codeChallenge: challenge,
        state,
        resource: resources.length > 0 ? serverResource : null,
        promptNone: (form.get("prompt") ?? "").split(" ").includes("none"),
        query
      }
    }
  })

/**
 * The authorization response: `params` added to the redirect location's own query (the registered redirect URI,
 * percent-encoded only where it has to be), with `state` when the request had one and `iss` (RFC 9207) always.
 */
export const authorizationResponseUrl = (
  redirectLocation: string,
  issuer: string,
  state: string | undefined,
  params: Record<string, string>
): string => {
  const query = new URLSearchParams(params)
  if (state !== undefined) query.set("state", state)
  query.set("iss", issuer)
  return `${redirectLocation}${redirectLocation.includes("?") ? "&" : "?"}${query.toString()}`
}
