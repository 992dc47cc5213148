import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { hashSecret, newSecret } from "../Auth/Secrets.js"
import { AppConfig } from "../Config.js"
import type { UserId } from "../Domain/Ids.js"
import type { ClientRow } from "./ClientsRepo.js"
import { REFRESH_GRACE_SECONDS } from "./Metadata.js"
import { verifierMatches } from "./Pkce.js"
import { OAuthRepo } from "./Repo.js"
import { invalidGrant, invalidRequest, invalidTarget, OAuthError } from "./Responses.js"
import { isKnownScope, SCOPES_SUPPORTED, tokenScopeOf, withinGranted } from "./Scopes.js"

export const CODE_PREFIX = "cbs_ac_"
export const ACCESS_TOKEN_PREFIX = "cbs_at_"
export const REFRESH_TOKEN_PREFIX = "cbs_rt_"
const CODE_SECONDS = 60
const REFRESH_SECONDS = 30 * 24 * 60 * 60
/** Expired codes and tokens are kept a day (a late reuse is still recognised as one), then deleted. */
const KEEP_EXPIRED_MS = 24 * 60 * 60 * 1000

const iso = (ms: number) => new Date(ms).toISOString()
const plausible = (secret: string, prefix: string) => secret.startsWith(prefix) && secret.length <= 200

/** The token response (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token?: string
  readonly scope: string
}

/** Authorization codes and the token endpoint's two grants. */
export class OAuthTokens extends Effect.Service<OAuthTokens>()("OAuth/Tokens", {
  dependencies: [OAuthRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OAuthRepo
    const sql = yield* SqlClient.SqlClient
    const { oauthAccessTokenSeconds } = yield* AppConfig

    /**
     * Issues an access token, and a refresh token to clients registered for that grant, within `grantId`. `scope` is
     * the one answered; `narrowed` is the token's own scope when a refresh asked for less than the grant has (null:
     * the token follows its grant, whose scope the person may change on the connection page).
     */
    const issue = (grantId: number, client: ClientRow, scope: string, now: number, narrowed: string | null = null) =>
      Effect.gen(function* () {
        const accessToken = newSecret(ACCESS_TOKEN_PREFIX)
        const refreshToken = newSecret(REFRESH_TOKEN_PREFIX)
        const refreshable = client.grant_types.includes("refresh_token")
        yield* repo.insertTokens({
          grant_id: grantId,
          access_hash: hashSecret(accessToken),
          access_expires_at: iso(now + oauthAccessTokenSeconds * 1000),
          access_scope: narrowed,
          refresh: refreshable
            ? { hash: hashSecret(refreshToken), expires_at: iso(now + REFRESH_SECONDS * 1000) }
            : undefined,
          created_at: iso(now)
        })
        const response: TokenResponse = {
          access_token: accessToken,
          token_type: "Bearer",
          expires_in: oauthAccessTokenSeconds,
          ...(refreshable ? { refresh_token: refreshToken } : {}),
          scope
        }
        return response
      })

    /** A new single-use authorization code for an Allow; returned in clear once, stored as a hash. */
    const createCode = Effect.fn("OAuthTokens.createCode")(function* (grant: {
      readonly clientId: string
      readonly userId: UserId
      readonly redirectUri: string
      readonly redirectUriGiven: boolean
      readonly codeChallenge: string
      readonly resource: string | null
      /** What the person allowed: READ_ONLY or READ_AND_EDIT. */
      readonly scope: string
    }) {
      const now = yield* Clock.currentTimeMillis
      yield* repo.pruneExpired(iso(now - KEEP_EXPIRED_MS))
      const code = newSecret(CODE_PREFIX)
      yield* repo.insertCode({
        code_hash: hashSecret(code),
        client_id: grant.clientId,
        user_id: grant.userId,
        redirect_uri: grant.redirectUri,
        redirect_uri_given: grant.redirectUriGiven,
        code_challenge: grant.codeChallenge,
        resource: grant.resource,
        scope: grant.scope,
        created_at: iso(now),
        expires_at: iso(now + CODE_SECONDS * 1000)
      })
      return code
    })

    /**
     * `grant_type=authorization_code`. The code is marked used before anything else is checked, so a failed
     * attempt burns it too; presenting a used code again revokes every token issued from it.
     */
    const exchangeCode = Effect.fn("OAuthTokens.exchangeCode")(function* (request: {
      readonly client: ClientRow
      readonly code: string | undefined
      readonly redirectUri: string | undefined
      readonly codeVerifier: string | undefined
      readonly resource: string | undefined
      /** The one resource this server issues tokens for. */
      readonly serverResource: string
    }): Effect.fn.Return<TokenResponse, OAuthError> {
      const { client, code, codeVerifier } = request
      if (code === undefined || code === "") return yield* invalidRequest("code is required.")
      if (codeVerifier === undefined || codeVerifier === "") {
        return yield* invalidRequest("code_verifier is required (PKCE).")
      }
      const now = yield* Clock.currentTimeMillis
      const hash = hashSecret(code)
      const claimed = plausible(code, CODE_PREFIX) ? yield* repo.claimCode(hash, iso(now)) : Option.none()
      if (Option.isNone(claimed)) {
        if (yield* repo.codeExists(hash)) {
          yield* repo.revokeForReusedCode(hash, iso(now)).pipe(sql.withTransaction, Effect.orDie)
          yield* Effect.logWarning("An authorization code was presented again; its tokens are revoked.")
        }
        return yield* invalidGrant("The authorization code is unknown, expired or already used.")
      }
      const row = claimed.value
      if (row.client_id !== client.client_id) {
        return yield* invalidGrant("The authorization code was issued to another client.")
      }
      if (row.expired) return yield* invalidGrant("The authorization code has expired.")
      if (request.redirectUri === undefined && row.redirect_uri_given) {
        return yield* invalidRequest("redirect_uri is required: the authorization request had one.")
      }
      if (request.redirectUri !== undefined && request.redirectUri !== row.redirect_uri) {
        return yield* invalidGrant("redirect_uri does not match the authorization request.")
      }
      if (!verifierMatches(codeVerifier, row.code_challenge)) {
        return yield* invalidGrant("code_verifier does not match the code challenge.")
      }
      if (request.resource !== undefined && request.resource !== (row.resource ?? request.serverResource)) {
        return yield* invalidTarget("resource does not match the authorization request.")
      }
      return yield* Effect.gen(function* () {
        // The row lock orders this against a concurrent reuse of the same code, which revokes what is issued here.
        if (yield* repo.lockCodeReused(hash)) {
          return yield* invalidGrant("The authorization code was already used.")
        }
        const grantId = yield* repo.insertGrant({
          client_id: client.client_id,
          user_id: row.user_id,
          code_hash: hash,
          scope: row.scope,
          resource: row.resource,
          created_at: iso(now)
        })
        return yield* issue(grantId, client, row.scope, now)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    /** `grant_type=refresh_token`: rotates the refresh token and issues a new access token in the same grant. */
    const refresh = Effect.fn("OAuthTokens.refresh")(function* (request: {
      readonly client: ClientRow
      readonly refreshToken: string | undefined
      readonly scope: string | undefined
      readonly resource: string | undefined
      readonly serverResource: string
    }): Effect.fn.Return<TokenResponse, OAuthError> {
      const { client, refreshToken } = request
      if (!client.grant_types.includes("refresh_token")) {
        return yield* new OAuthError({
          error: "unauthorized_client",
          description: "The client did not register the refresh_token grant."
        })
      }
      if (refreshToken === undefined || refreshToken === "") return yield* invalidRequest("refresh_token is required.")
      if (request.resource !== undefined && request.resource !== request.serverResource) {
        return yield* invalidTarget(`This server issues tokens only for ${request.serverResource}.`)
      }
      // An empty scope parameter asks for nothing in particular, like none (RFC 6749 §6: the scope granted).
      const asked = request.scope === undefined || request.scope.trim() === "" ? undefined : request.scope
      if (asked !== undefined && !isKnownScope(asked)) {
        return yield* new OAuthError({
          error: "invalid_scope",
          description: `The scopes are ${SCOPES_SUPPORTED.join(" and ")}.`
        })
      }
      const now = yield* Clock.currentTimeMillis
      const hash = hashSecret(refreshToken)
      const issued = plausible(refreshToken, REFRESH_TOKEN_PREFIX)
        ? yield* Effect.gen(function* () {
            const grant = yield* repo.useRefreshToken({
              hash,
              clientId: client.client_id,
              now: iso(now),
              graceStart: iso(now - REFRESH_GRACE_SECONDS * 1000)
            })
            if (Option.isNone(grant)) return Option.none<TokenResponse>()
            const granted = grant.value.scope
            if (asked !== undefined && !withinGranted(asked, granted)) {
              // A refresh never widens what the person allowed: that takes a new authorization. Failing here rolls
              // the transaction back, so the refresh token stays as it was.
              return yield* new OAuthError({
                error: "invalid_scope",
                description: `This connection was allowed ${tokenScopeOf(granted)} only, and a refresh cannot add to it. Connect again (sign in again and choose Read and edit) to allow more.`
              })
            }
            // A refresh may narrow the access token (RFC 6749 §6); the grant, and so the next refresh, keep theirs.
            const scope = tokenScopeOf(asked ?? granted)
            const narrowed = scope === tokenScopeOf(granted) ? null : scope
            return Option.some(yield* issue(grant.value.grant_id, client, scope, now, narrowed))
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        : Option.none<TokenResponse>()
      if (Option.isSome(issued)) return issued.value
      const reusedGrant = yield* repo.grantOfUsedRefreshToken(hash, client.client_id)
      if (reusedGrant !== undefined) {
        // Used again after its rotation and grace: someone else may hold it. End the whole grant.
        yield* repo.revokeGrant(reusedGrant, iso(now))
        yield* Effect.logWarning("A rotated refresh token was presented again; its grant is revoked.")
      }
      return yield* invalidGrant("The refresh token is unknown, expired, revoked or already used.")
    })

    /**
     * Token revocation (RFC 7009 §2.1) by the client the token was issued to. A refresh token ends its whole grant:
     * the refresh token and every access token issued with it stop working at once. An access token ends alone.
     * A token that is unknown, expired or already revoked needs nothing done (the endpoint still answers 200).
     */
    const revoke = Effect.fn("OAuthTokens.revoke")(function* (request: {
      readonly client: ClientRow
      readonly token: string
    }): Effect.fn.Return<void, OAuthError> {
      const { client, token } = request
      const now = iso(yield* Clock.currentTimeMillis)
      const hash = hashSecret(token)
      const notTheirs = new OAuthError({
        error: "unauthorized_client",
        description: "The token was issued to another client; only that client may revoke it."
      })
      if (plausible(token, REFRESH_TOKEN_PREFIX)) {
        const owner = yield* repo.refreshTokenOwner(hash)
        if (owner === undefined) return
        if (owner.client_id !== client.client_id) return yield* notTheirs
        yield* repo.revokeGrant(owner.grant_id, now)
      } else if (plausible(token, ACCESS_TOKEN_PREFIX)) {
        const owner = yield* repo.accessTokenOwner(hash)
        if (owner === undefined) return
        if (owner.client_id !== client.client_id) return yield* notTheirs
        yield* repo.revokeAccessToken(hash, now)
      }
    })

    return { createCode, exchangeCode, refresh, revoke }
  })
}) {}
