import { READ_AND_EDIT, SCOPES_SUPPORTED } from "./Scopes.js"

/** What a client is told to ask for (the 401's `scope`): both; the person then chooses on the consent page. */
export const CHALLENGE_SCOPE = READ_AND_EDIT

/**
 * How long after its first use a rotated refresh token still works once more, for a client whose token response was
 * lost on the way. Published in the authorization-server metadata as `refresh_token_grace_seconds`.
 */
export const REFRESH_GRACE_SECONDS = 30

/** The protected resource (RFC 8707 resource indicator): the MCP endpoint. Tokens are only ever for it. */
export const mcpResource = (base: string): string => `${base}/mcp`

/** Where the MCP endpoint's protected-resource metadata is published; the /mcp 401 points clients there. */
export const resourceMetadataUrl = (base: string): string => `${base}/.well-known/oauth-protected-resource/mcp`

/** RFC 9728 protected-resource metadata for `<base>/mcp`. */
export const protectedResourceMetadata = (base: string) => ({
  resource: mcpResource(base),
  authorization_servers: [base],
  scopes_supported: [...SCOPES_SUPPORTED],
  bearer_methods_supported: ["header"],
  resource_name: "Content and backlink service (MCP)"
})

/** RFC 8414 authorization-server metadata; the issuer is the base URL itself. */
export const authorizationServerMetadata = (base: string) => ({
  issuer: base,
  authorization_endpoint: `${base}/authorize`,
  token_endpoint: `${base}/token`,
  registration_endpoint: `${base}/register`,
  revocation_endpoint: `${base}/revoke`,
  scopes_supported: [...SCOPES_SUPPORTED],
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token"],
  token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
  revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
  code_challenge_methods_supported: ["S256"],
  authorization_response_iss_parameter_supported: true,
  // A client may name itself by the https:// URL of its metadata document instead of registering (MCP's
  // recommended way); dynamic registration stays for the clients that still use it.
  client_id_metadata_document_supported: true,
  // Not a registered metadata name: refresh tokens rotate on every use, and the one just replaced is accepted once
  // more within this many seconds of its first use (a retry after a lost response); later, it ends its grant.
  refresh_token_grace_seconds: REFRESH_GRACE_SECONDS
})
