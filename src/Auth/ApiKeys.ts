import { Effect, Option } from "effect"
import type { Credential } from "../Domain/Credential.js"
import type { AccountId, ApiKeyId } from "../Domain/Ids.js"
import { counterKeyPrefix, type RequestWindow } from "../Limits.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { hashSecret, newSecret, sameHash } from "./Secrets.js"

const KEY_PREFIX = "cbs_"
/** Characters of a key kept in clear so that a person can tell keys apart: `cbs_` and 8 more. */
const VISIBLE_PREFIX_LENGTH = 12

export class ApiKeys extends Effect.Service<ApiKeys>()("Auth/ApiKeys", {
  dependencies: [ApiKeysRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ApiKeysRepo

    /** Creates a key and returns it in clear, the only time it is ever available. */
    const create = Effect.fn("ApiKeys.create")(function* (options: {
      readonly accountId: AccountId
      readonly name: string
      readonly isAdmin: boolean
    }) {
      const key = newSecret(KEY_PREFIX)
      const row = yield* repo.insert({
        account_id: options.accountId,
        name: options.name,
        prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
        key_hash: hashSecret(key),
        is_admin: options.isAdmin
      })
      return { key, row }
    })

    /** The credential a key stands for, if it is a live key. */
    const authenticate = Effect.fn("ApiKeys.authenticate")(function* (key: string) {
      if (!key.startsWith(KEY_PREFIX) || key.length > 200) return Option.none<Credential>()
      const hash = hashSecret(key)
      const found = yield* repo.findLive(hash)
      return Option.flatMap(found, (row) =>
        sameHash(row.key_hash, hash)
          ? Option.some<Credential>({ kind: "api_key", id: row.id, accountId: row.account_id, isAdmin: row.is_admin })
          : Option.none()
      )
    })

    /**
     * `authenticate`, counting the request in the credential's per-minute `window` in the same statement (see
     * Limits.countedWith); the window's count with the credential.
     */
    const authenticateCounting = (key: string, window: RequestWindow) => {
      if (!key.startsWith(KEY_PREFIX) || key.length > 200) return Effect.succeed(Option.none())
      const hash = hashSecret(key)
      return Effect.map(repo.findLiveCounting(hash, counterKeyPrefix("api_key"), window.iso), (found) =>
        Option.flatMap(found, (row) =>
          sameHash(row.key_hash, hash)
            ? Option.some({
                credential: { kind: "api_key", id: row.id, accountId: row.account_id, isAdmin: row.is_admin } as const,
                count: row.count
              })
            : Option.none()
        )
      )
    }

    return {
      create,
      authenticateCounting,
      authenticate,
      revoke: (id: ApiKeyId) => repo.revoke(id),
      list: (accountId: AccountId) => repo.listForAccount(accountId)
    }
  })
}) {}
