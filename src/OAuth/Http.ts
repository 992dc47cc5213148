import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Layer } from "effect"
import { RequestBase, RequestBaseLive } from "../Http/PublicUrl.js"
import { Sessions } from "../SignIn/Sessions.js"
import { authorizeEndpoints } from "./AuthorizeHttp.js"
import { OAuthClients } from "./Clients.js"
import { authorizationServerMetadata, mcpResource, protectedResourceMetadata } from "./Metadata.js"
import { parseRegistration } from "./Registration.js"
import { corsJson, noStoreHeaders, OAuthError, oauthErrorResponse, preflight } from "./Responses.js"
import { revocationEndpoint } from "./RevokeHttp.js"
import { tokenEndpoint } from "./TokenHttp.js"
import { OAuthTokens } from "./Tokens.js"

/** The metadata documents, named after the base URL the request used (see `RequestBase`). */
const publicJson = (body: unknown) => corsJson(body, { headers: { "cache-control": "max-age=300" } })

/**
 * The authorization server's endpoints:
 * - `GET /.well-known/oauth-protected-resource[/mcp]` (RFC 9728) and `GET /.well-known/oauth-authorization-server`
 *   (RFC 8414);
 * - `POST /register`: dynamic client registration (RFC 7591);
 * - `GET|POST /authorize`: sign-in, then the consent page;
 * - `POST /token`: authorization_code (PKCE S256) and refresh_token grants;
 * - `POST /revoke`: token revocation (RFC 7009).
 * The documents, /register, /token and /revoke answer CORS preflights, for browser-based clients.
 */
const EndpointsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const baseOf = yield* RequestBase
    const clients = yield* OAuthClients
    const resourceOf = (request: HttpServerRequest.HttpServerRequest) => mcpResource(baseOf(request))
    const document = (of: (base: string) => unknown) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => publicJson(of(baseOf(request))))

    const resourceDocument = document(protectedResourceMetadata)
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource"
    ] as const) {
      yield* router.get(path, resourceDocument)
      yield* router.options(path, Effect.succeed(preflight))
    }
    yield* router.get("/.well-known/oauth-authorization-server", document(authorizationServerMetadata))
    yield* router.options("/.well-known/oauth-authorization-server", Effect.succeed(preflight))

    yield* router.post(
      "/register",
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
        return corsJson(registered, { status: 201, headers: noStoreHeaders })
      })
    )
    yield* router.options("/register", Effect.succeed(preflight))

    yield* router.post("/token", yield* tokenEndpoint(resourceOf))
    yield* router.options("/token", Effect.succeed(preflight))

    yield* router.post("/revoke", yield* revocationEndpoint)
    yield* router.options("/revoke", Effect.succeed(preflight))

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
