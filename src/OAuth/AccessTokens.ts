import { Clock, Effect, Option } from "effect"
import { hashSecret } from "../Auth/Secrets.js"
import type { Credential } from "../Domain/Credential.js"
import { OAuthRepo } from "./Repo.js"
import { allowsWrite } from "./Scopes.js"
import { ACCESS_TOKEN_PREFIX } from "./Tokens.js"

/** The bearer tokens of the MCP endpoint: an access token stands for the user who allowed it. */
export class AccessTokens extends Effect.Service<AccessTokens>()("OAuth/AccessTokens", {
  dependencies: [OAuthRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OAuthRepo

    /**
     * The signed-in user's credential an access token carries; None when the token is unknown, expired (by the
     * service's clock) or revoked (its grant ended by a code or refresh token reuse).
     */
    const verify = Effect.fn("AccessTokens.verify")(function* (token: string) {
      if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 200) return Option.none<Credential>()
      const now = yield* Clock.currentTimeMillis
      const found = yield* repo.findAccess(hashSecret(token), new Date(now).toISOString())
      return Option.map(
        found,
        (row): Credential => ({
          kind: "user",
          id: row.user_id,
          accountId: row.account_id,
          isAdmin: row.is_admin,
          canWrite: allowsWrite(row.scope)
        })
      )
    })

    return { verify }
  })
}) {}
