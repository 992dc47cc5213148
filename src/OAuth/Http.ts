import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Layer } from "effect"
import { AppConfig } from "../Config.js"
import { originAllowed } from "../Http/Origins.js"
import { PublicUrl, RequestBase, RequestBaseLive } from "../Http/PublicUrl.js"
import { Sessions } from "../SignIn/Sessions.js"
import { authorizeEndpoints } from "./AuthorizeHttp.js"
import { OAuthClients } from "./Clients.js"
import { CLIENT_CORS, DOCUMENT_CORS, oauthCors, REGISTER_CORS } from "./Cors.js"
import { authorizationServerMetadata, mcpResource, protectedResourceMetadata } from "./Metadata.js"
import { parseRegistration } from "./Registration.js"
import { noStoreHeaders, OAuthError, oauthErrorResponse, oauthJson } from "./Responses.js"
import { revocationEndpoint } from "./RevokeHttp.js"
import { tokenEndpoint } from "./TokenHttp.js"
import { OAuthTokens } from "./Tokens.js"

/** The metadata documents, named after the base URL the request used (see `RequestBase`). */
const publicJson = (body: unknown) => oauthJson(body, { headers: { "cache-control": "max-age=300" } })

/**
 * The authorization server's endpoints:
 * - `GET /.well-known/oauth-protected-resource[/mcp]` (RFC 9728) and `GET /.well-known/oauth-authorization-server`
 *   (RFC 8414);
 * - `POST /register`: dynamic client registration (RFC 7591);
 * - `GET|POST /authorize`: sign-in, then the consent page;
 * - `POST /token`: authorization_code (PKCE S256) and refresh_token grants;
 * - `POST /revoke`: token revocation (RFC 7009).
 * The documents, /register, /token and /revoke answer CORS preflights, for browser-based clients (see `oauthCors`).
 */
const EndpointsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const baseOf = yield* RequestBase
    const clients = yield* OAuthClients
    const { mcpAllowedOrigins } = yield* AppConfig
    const cors = oauthCors(mcpAllowedOrigins, originAllowed(yield* PublicUrl, mcpAllowedOrigins))
    const documents = cors(DOCUMENT_CORS)
    const registration = cors(REGISTER_CORS)
    const clientCalls = cors(CLIENT_CORS)
    const resourceOf = (request: HttpServerRequest.HttpServerRequest) => mcpResource(baseOf(request))
    const document = (of: (base: string) => unknown) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => publicJson(of(baseOf(request))))

    const resourceDocument = documents.answer(document(protectedResourceMetadata))
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource"
    ] as const) {
      yield* router.get(path, resourceDocument)
      yield* router.options(path, documents.preflight)
    }
    yield* router.get(
      "/.well-known/oauth-authorization-server",
      documents.answer(document(authorizationServerMetadata))
    )
    yield* router.options("/.well-known/oauth-authorization-server", documents.preflight)

    yield* router.post(
      "/register",
      registration.answer(
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* Effect.either(request.json)
          const metadata = Either.flatMap(
            Either.mapLeft(
              body,
              () => new OAuthError({ error: "invalid_client_metadata", description: "The body must be a JSON object." })
            ),
            parseRegistration
          )
          if (Either.isLeft(metadata)) return oauthErrorResponse(metadata.left)
          const registered = yield* clients.register(metadata.right)
          return oauthJson(registered, { status: 201, headers: noStoreHeaders })
        })
      )
    )
    yield* router.options("/register", registration.preflight)

    yield* router.post("/token", clientCalls.answer(yield* tokenEndpoint(resourceOf)))
    yield* router.options("/token", clientCalls.preflight)

    yield* router.post("/revoke", clientCalls.answer(yield* revocationEndpoint))
    yield* router.options("/revoke", clientCalls.preflight)

    const authorize = yield* authorizeEndpoints(baseOf)
    yield* router.get("/authorize", authorize.show)
    yield* router.post("/authorize", authorize.decide)
  })
)

/** Every OAuth route, with the services they use (access tokens are verified by the MCP endpoint). */
export const OAuthRoutesLive = EndpointsLive.pipe(
  Layer.provide([OAuthClients.Default, OAuthTokens.Default, Sessions.Default]),
  Layer.provide(RequestBaseLive)
)
