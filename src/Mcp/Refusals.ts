import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import type { CredentialRefusal } from "../Domain/Credential.js"
import { MethodNotAllowed, Unauthorized } from "../Domain/Errors.js"
import { errorResponse } from "../Http/ErrorResponse.js"
import { CHALLENGE_SCOPE, resourceMetadataUrl } from "../OAuth/Metadata.js"
import { WRITE_SCOPE } from "../OAuth/Scopes.js"

/** What a refused access token is told (no double quote: each is a quoted string in the challenge too). */
export const tokenRefusals: Readonly<Record<CredentialRefusal, string>> = {
  unknown: "The access token is unknown; sign in to get one.",
  revoked: "The access token has been revoked; sign in again to connect.",
  expired: "The access token has expired; get a new one with the refresh token, or sign in again."
}

export const MALFORMED = "The Authorization header must be 'Bearer <access token>'."

/**
 * The refusals of `/mcp` before anything in a request runs, each with the challenge that points to the metadata
 * named after the base URL the client used (`baseOf`, see `RequestBase`).
 */
export const mcpRefusals = (baseOf: (request: HttpServerRequest.HttpServerRequest) => string) => ({
  /** 401; a token that was sent and refused adds `invalid_token` and says why (RFC 6750 §3). */
  unauthorized: (request: HttpServerRequest.HttpServerRequest, refused: string | undefined) =>
    errorResponse(new Unauthorized({ message: refused ?? "Sign in: this endpoint needs an OAuth access token." }), {
      "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl(baseOf(request))}", scope="${CHALLENGE_SCOPE}"${
        refused === undefined ? "" : `, error="invalid_token", error_description="${refused}"`
      }`
    }),

  /**
   * A write by a connection allowed to read only: HTTP 403 with the specification's insufficient-scope challenge,
   * so that a client can ask the person to allow editing (a step-up), and nothing in the request runs.
   */
  insufficientScope: (request: HttpServerRequest.HttpServerRequest) =>
    HttpServerResponse.unsafeJson(
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message:
            "This connection may only read. Ask the person to connect again and choose Read and edit (scope content:write)."
        }
      },
      {
        status: 403,
        headers: {
          "www-authenticate": `Bearer error="insufficient_scope", scope="${WRITE_SCOPE}", resource_metadata="${resourceMetadataUrl(baseOf(request))}", error_description="This connection may only read."`
        }
      }
    )
})

/** GET and DELETE: the endpoint keeps no sessions and streams nothing of its own. */
export const methodNotAllowed = errorResponse(
  new MethodNotAllowed({ message: "This endpoint is stateless: send JSON-RPC messages with POST." }),
  { allow: "POST, OPTIONS" }
)
