import { HttpServerResponse } from "@effect/platform"
import { Data, Effect } from "effect"

/**
 * An OAuth error as RFC 6749 §5.2 / RFC 7591 §3.2.2 define them: `{ error, error_description }`, 400 unless said
 * otherwise (401 for `invalid_client`).
 */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: string
  readonly description: string
  readonly status?: number
}> {
  override get message() {
    return `${this.error}: ${this.description}`
  }
}

export const invalidRequest = (description: string) => new OAuthError({ error: "invalid_request", description })
export const invalidGrant = (description: string) => new OAuthError({ error: "invalid_grant", description })
export const invalidTarget = (description: string) => new OAuthError({ error: "invalid_target", description })
export const invalidClient = (description: string) =>
  new OAuthError({ error: "invalid_client", description, status: 401 })

/** Token responses and errors must never be cached (RFC 6749 §5.1). */
export const noStoreHeaders: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  pragma: "no-cache"
}

/** A JSON answer (the CORS headers are the route's, see `OAuthCors`). */
export const oauthJson = (
  body: unknown,
  options?: { readonly status?: number; readonly headers?: Record<string, string> }
) => HttpServerResponse.unsafeJson(body, { status: options?.status ?? 200, headers: { ...options?.headers } })

/** An OAuth error as its JSON response (never cached). */
export const oauthErrorResponse = (error: OAuthError) =>
  oauthJson(
    { error: error.error, error_description: error.description },
    {
      status: error.status ?? 400,
      headers: {
        ...noStoreHeaders,
        // Without it the server would add its API `Bearer` challenge to a 401.
        ...(error.status === 401 ? { "www-authenticate": 'Basic realm="oauth"' } : {})
      }
    }
  )

/**
 * An OAuth endpoint's answer whatever happens: its OAuth errors as their JSON, and any defect logged and answered
 * 500 `server_error` (never HTML, never internals).
 */
export const answeredAsOAuth =
  (what: string) =>
  <R>(
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, OAuthError, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
    effect.pipe(
      Effect.catchTag("OAuthError", (error) => Effect.succeed(oauthErrorResponse(error))),
      Effect.catchAllDefect((defect) =>
        Effect.logError(`${what} failed`, defect).pipe(
          Effect.as(
            oauthErrorResponse(
              new OAuthError({ error: "server_error", description: "Something went wrong on our side.", status: 500 })
            )
          )
        )
      )
    )
