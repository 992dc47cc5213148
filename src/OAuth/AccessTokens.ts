import { Effect, Option } from "effect"
import { hashSecret } from "../Auth/Secrets.js"
import type { Credential, CredentialRefusal } from "../Domain/Credential.js"
import { counterKeyPrefix, type RequestWindow } from "../Limits/Limits.js"
import { OAuthRepo } from "./Repo.js"
import { allowsWrite } from "./Scopes.js"
import { ACCESS_TOKEN_PREFIX } from "./Tokens.js"

const plausible = (token: string) => token.startsWith(ACCESS_TOKEN_PREFIX) && token.length <= 200

/** The bearer tokens of the MCP endpoint: an access token stands for the user who allowed it. */
export class AccessTokens extends Effect.Service<AccessTokens>()("OAuth/AccessTokens", {
  dependencies: [OAuthRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OAuthRepo

    /**
     * The signed-in user's credential an access token carries, its request counted in the user's per-minute
     * `window` by the same statement (see Limits.allowanceAfter), with the window's count and the account's changes
     * today; None when the token is unknown, expired (by the service's clock) or revoked (its grant ended by a code
     * or refresh token reuse), and then nothing is counted.
     */
    const verifyCounting = (token: string, window: RequestWindow) => {
      if (!plausible(token)) return Effect.succeed(Option.none())
      const counter = { prefix: counterKeyPrefix("user"), windowStart: window.iso, day: window.day }
      return Effect.map(
        repo.findAccessCounting(hashSecret(token), new Date(window.now).toISOString(), counter),
        Option.map((row) => ({
          credential: {
            kind: "user",
            id: row.user_id,
            accountId: row.account_id,
            isAdmin: row.is_admin,
            canWrite: allowsWrite(row.scope),
            clientId: row.client_id
          } satisfies Credential,
          count: row.count,
          edits: row.edits
        }))
      )
    }

    /** Why `token` was refused at `now` (`verifyCounting` found no live token); only for a token that was refused. */
    const refusal = (token: string, now: number): Effect.Effect<CredentialRefusal> =>
      plausible(token)
        ? Effect.map(repo.accessTokenEnd(hashSecret(token), new Date(now).toISOString()), (end) =>
            end === undefined ? "unknown" : end.revoked ? "revoked" : end.expired ? "expired" : "unknown"
          )
        : Effect.succeed("unknown")

    return { verifyCounting, refusal }
  })
}) {}
