import { Effect, Option, Schema } from "effect"
import { atMostMessage } from "../Domain/Bounds.js"
import type { Credential, CredentialRefusal } from "../Domain/Credential.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import type { AccountId, ApiKeyId } from "../Domain/Ids.js"
import { OneLine } from "../Domain/Text.js"
import { counterKeyPrefix, type RequestWindow } from "../Limits/Limits.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { hashSecret, newSecret, sameHash } from "./Secrets.js"

/** The most characters of a key's name. */
export const MAX_KEY_NAME = 100

/**
 * What a key is created with, whichever door creates it (the connection page, `cbs key create`): its name is one
 * line of 1 to MAX_KEY_NAME characters once trimmed (stored trimmed), so that it reads as written in every list.
 */
const NewKey = Schema.Struct({
  name: OneLine.pipe(
    Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty" }),
    Schema.filter((s) => s.trim().length <= MAX_KEY_NAME, { message: () => atMostMessage(MAX_KEY_NAME, "characters") })
  )
})
const decodeNewKey = Schema.decodeUnknown(NewKey)

const KEY_PREFIX = "cbs_"
/** Characters of a key kept in clear so that a person can tell keys apart: `cbs_` and 8 more. */
const VISIBLE_PREFIX_LENGTH = 12

/** Whether `key` could be one of ours at all; anything else is refused without a look at the database. */
const plausible = (key: string) => key.startsWith(KEY_PREFIX) && key.length <= 200

/** The credential of a key row the lookup found, if its hash is the one sent (compared in constant time). */
const credentialOf = (
  row: {
    readonly id: ApiKeyId
    readonly account_id: AccountId
    readonly is_admin: boolean
    readonly read_only: boolean
    readonly key_hash: Uint8Array
  },
  hash: Uint8Array
): Option.Option<Credential> =>
  sameHash(row.key_hash, hash)
    ? Option.some({
        kind: "api_key",
        id: row.id,
        accountId: row.account_id,
        isAdmin: row.is_admin,
        canWrite: !row.read_only
      })
    : Option.none()

export class ApiKeys extends Effect.Service<ApiKeys>()("Auth/ApiKeys", {
  dependencies: [ApiKeysRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ApiKeysRepo

    /**
     * Creates a key and returns it in clear, the only time it is ever available; a name that is not one line of 1 to
     * MAX_KEY_NAME characters is a `ValidationError` naming `name`, and nothing is stored.
     */
    const create = Effect.fn("ApiKeys.create")(function* (options: {
      readonly accountId: AccountId
      readonly name: string
      readonly isAdmin: boolean
      /** A key that can only read: its writes are 403 `forbidden`. */
      readonly readOnly?: boolean
    }) {
      const { name } = yield* Effect.mapError(decodeNewKey({ name: options.name }), fromParseError)
      const key = newSecret(KEY_PREFIX)
      const row = yield* repo.insert({
        account_id: options.accountId,
        name: name.trim(),
        prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
        key_hash: hashSecret(key),
        is_admin: options.isAdmin,
        read_only: options.readOnly === true
      })
      return { key, row }
    })

    /** The credential a key stands for, if it is a live key. */
    const authenticate = Effect.fn("ApiKeys.authenticate")(function* (key: string) {
      if (!plausible(key)) return Option.none<Credential>()
      const hash = hashSecret(key)
      return Option.flatMap(yield* repo.findLive(hash), (row) => credentialOf(row, hash))
    })

    /**
     * `authenticate`, counting the request in the credential's per-minute `window` in the same statement (see
     * Limits.allowanceAfter); the window's count and the account's changes today with the credential.
     */
    const authenticateCounting = (key: string, window: RequestWindow) => {
      if (!plausible(key)) return Effect.succeed(Option.none())
      const hash = hashSecret(key)
      return Effect.map(repo.findLiveCounting(hash, counterKeyPrefix("api_key"), window.iso, window.day), (found) =>
        Option.flatMap(found, (row) =>
          Option.map(credentialOf(row, hash), (credential) => ({ credential, count: row.count, edits: row.edits }))
        )
      )
    }

    /**
     * Why `key` was refused (it found no live key): revoked, or unknown (keys do not expire). Only for a key that was
     * refused: a valid one never makes this second round trip.
     */
    const refusal = (key: string): Effect.Effect<Exclude<CredentialRefusal, "expired">> =>
      plausible(key)
        ? Effect.map(repo.isRevoked(hashSecret(key)), (revoked) => (revoked ? "revoked" : "unknown"))
        : Effect.succeed("unknown")

    return {
      create,
      refusal,
      authenticateCounting,
      authenticate,
      revoke: (id: ApiKeyId) => repo.revoke(id),
      list: (accountId: AccountId) => repo.listForAccount(accountId)
    }
  })
}) {}
