import { randomBytes } from "node:crypto"
import { Clock, Effect, Option } from "effect"
import { hashSecret, newSecret, sameHash } from "../Auth/Secrets.js"
import { type ClientRow, OAuthClientsRepo } from "./ClientsRepo.js"
import { ClientMetadataDocuments, isMetadataDocumentUrl } from "./MetadataDocuments.js"
import type { ClientMetadata, TokenEndpointAuthMethod } from "./Registration.js"
import { invalidClient, type OAuthError } from "./Responses.js"
import { SCOPES_SUPPORTED } from "./Scopes.js"

const SECRET_PREFIX = "cbs_cs_"

/** How a client identified itself at the token or revocation endpoint. */
export interface ClientCredentials {
  readonly clientId: string | undefined
  readonly clientSecret: string | undefined
  /** The way the credentials were sent: the Authorization header, the body, or no secret at all. */
  readonly method: TokenEndpointAuthMethod
}

/** What a client that registered `method` must do, for the error that says it did otherwise. */
const howTo: Readonly<Record<TokenEndpointAuthMethod, string>> = {
  none: "it is a public client (token_endpoint_auth_method none): send client_id alone, with no secret and no Authorization header",
  client_secret_basic:
    "it registered client_secret_basic: send client_id and client_secret in the Authorization header (Basic), not in the body",
  client_secret_post:
    "it registered client_secret_post: send client_id and client_secret in the body, not in an Authorization header"
}

/** The registration response (RFC 7591 §3.2.1). */
const registrationResponse = (row: ClientRow, secret: string | undefined) => ({
  client_id: row.client_id,
  ...(row.client_name === null ? {} : { client_name: row.client_name }),
  redirect_uris: row.redirect_uris,
  grant_types: row.grant_types,
  response_types: row.response_types,
  token_endpoint_auth_method: row.token_endpoint_auth_method,
  // The scopes the client may ask for: those the metadata publishes, whatever it asked for (RFC 7591 §2 lets the
  // server replace them); the person chooses between them on the consent page.
  scope: SCOPES_SUPPORTED.join(" "),
  client_id_issued_at: row.client_id_issued_at,
  ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 })
})

export class OAuthClients extends Effect.Service<OAuthClients>()("OAuth/Clients", {
  dependencies: [OAuthClientsRepo.Default, ClientMetadataDocuments.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OAuthClientsRepo
    const documents = yield* ClientMetadataDocuments

    /** Registers a client; a confidential one gets a secret, returned here once and stored only as a hash. */
    const register = Effect.fn("OAuthClients.register")(function* (metadata: ClientMetadata) {
      const now = yield* Clock.currentTimeMillis
      const secret = metadata.token_endpoint_auth_method === "none" ? undefined : newSecret(SECRET_PREFIX)
      const row = yield* repo.insert({
        client_id: `cbs_client_${randomBytes(16).toString("base64url")}`,
        client_name: metadata.client_name,
        redirect_uris: metadata.redirect_uris,
        grant_types: metadata.grant_types,
        response_types: metadata.response_types,
        token_endpoint_auth_method: metadata.token_endpoint_auth_method,
        client_secret_hash: secret === undefined ? null : hashSecret(secret),
        created_at: new Date(now).toISOString()
      })
      return registrationResponse(row, secret)
    })

    /**
     * A client by its id: a registered one, or the one an https:// metadata-document URL describes (fetched and
     * registered; ClientDocumentRefused says why it cannot be). An id that no client can have (a NUL, over 200
     * characters for an id this service issued) is not looked up.
     */
    const find = (clientId: string) =>
      clientId.includes("\0")
        ? Effect.succeed(Option.none<ClientRow>())
        : isMetadataDocumentUrl(clientId)
          ? documents.resolve(clientId)
          : clientId.length === 0 || clientId.length > 200
            ? Effect.succeed(Option.none<ClientRow>())
            : repo.find(clientId)

    /**
     * Client authentication at the token and revocation endpoints (RFC 6749 §2.3): a public client names itself with
     * `client_id`; a confidential one proves its secret exactly the way it registered (RFC 7591 §2:
     * token_endpoint_auth_method), never another way.
     */
    const authenticate = Effect.fn("OAuthClients.authenticate")(function* (
      credentials: ClientCredentials
    ): Effect.fn.Return<ClientRow, OAuthError> {
      if (credentials.clientId === undefined) return yield* invalidClient("client_id is required.")
      const found = yield* find(credentials.clientId).pipe(
        Effect.catchTag("ClientDocumentRefused", (refused) => invalidClient(refused.message))
      )
      if (Option.isNone(found)) return yield* invalidClient("The client is not registered.")
      const client = found.value
      const registered = client.token_endpoint_auth_method
      if (credentials.method !== registered) {
        return yield* invalidClient(`This client may not authenticate that way: ${howTo[registered]}.`)
      }
      if (registered === "none") return client
      const secret = credentials.clientSecret
      if (secret === undefined || client.client_secret_hash === null) {
        return yield* invalidClient("The client must authenticate with its client secret.")
      }
      if (!sameHash(client.client_secret_hash, hashSecret(secret))) {
        return yield* invalidClient("The client secret is wrong.")
      }
      return client
    })

    return { register, find, authenticate }
  })
}) {}
