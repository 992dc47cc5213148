import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ApiKeyRow } from "../Domain/ApiKey.js"
import { AccountId, ApiKeyId } from "../Domain/Ids.js"
import { countRequestSql, editsUsedSql } from "../Limits/Counters.js"
import { rfc3339 } from "../Sql/SqlFormats.js"

const KeyMatch = Schema.Struct({
  id: ApiKeyId,
  account_id: AccountId,
  is_admin: Schema.Boolean,
  read_only: Schema.Boolean,
  key_hash: Schema.Uint8ArrayFromSelf
})

const CountedKeyMatch = Schema.Struct({ ...KeyMatch.fields, count: Schema.Number, edits: Schema.Number })

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("Auth/ApiKeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.unsafe(
      `id, account_id, name, prefix, is_admin, read_only, ${rfc3339("created_at")} as created_at, ${rfc3339("last_used_at")} as last_used_at, ${rfc3339("revoked_at")} as revoked_at`
    )

    const insert = SqlSchema.single({
      Request: Schema.Struct({
        account_id: AccountId,
        name: Schema.String,
        prefix: Schema.String,
        key_hash: Schema.Uint8ArrayFromSelf,
        is_admin: Schema.Boolean,
        read_only: Schema.Boolean
      }),
      Result: ApiKeyRow,
      execute: (req) => sql`insert into api_keys ${sql.insert(req)} returning ${columns}`
    })

    // The live key of `hash` as `k`, marked used at most once a minute so reads stay cheap.
    const liveKey = (hash: Uint8Array) => sql`
      k as (
        select id, account_id, is_admin, read_only, key_hash, last_used_at from api_keys
        where key_hash = ${hash} and revoked_at is null
      ), touched as (
        update api_keys set last_used_at = now() from k
        where api_keys.id = k.id and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
      )`

    // Looks a live key up by its hash and marks it used.
    const findLive = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: KeyMatch,
      execute: (hash) => sql`with ${liveKey(hash)} select id, account_id, is_admin, read_only, key_hash from k`
    })

    /**
     * `findLive`, and in the same statement counts a request of the key it finds in the per-minute window
     * `windowStart` (as Limits/Repo.countRequest does, under `counterPrefix` and the key's id); the window's count
     * with it, and the changes its account has made on `day` (for the edits left in the limit headers). One round
     * trip where an API request would otherwise make three.
     */
    const findLiveCounting = (hash: Uint8Array, counterPrefix: string, windowStart: string, day: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: CountedKeyMatch,
        execute: () => sql`
          with ${liveKey(hash)}, counted as (
            ${countRequestSql(sql, sql`${counterPrefix} || k.id`, windowStart, sql`from k`)}
          )
          select id, account_id, is_admin, read_only, key_hash, (select count from counted) as count,
            ${editsUsedSql(sql, sql`k.account_id`, day)} as edits
          from k`
      })(undefined).pipe(Effect.orDie)

    /** Whether a key of `hash` exists and has been revoked (for a key that was refused). */
    const isRevoked = (hash: Uint8Array) =>
      sql<{ revoked: boolean }>`select revoked_at is not null as revoked from api_keys where key_hash = ${hash}`.pipe(
        Effect.map((rows) => rows[0]?.revoked === true),
        Effect.orDie
      )

    const revoke = SqlSchema.findOne({
      Request: ApiKeyId,
      Result: ApiKeyRow,
      execute: (id) => sql`
        update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning ${columns}`
    })

    const listForAccount = SqlSchema.findAll({
      Request: AccountId,
      Result: ApiKeyRow,
      execute: (accountId) => sql`select ${columns} from api_keys where account_id = ${accountId} order by id`
    })

    return {
      insert: (req: Parameters<typeof insert>[0]) => insert(req).pipe(Effect.orDie),
      findLive: (hash: Uint8Array) => findLive(hash).pipe(Effect.orDie),
      findLiveCounting,
      isRevoked,
      revoke: (id: ApiKeyId) => revoke(id).pipe(Effect.orDie),
      listForAccount: (accountId: AccountId) => listForAccount(accountId).pipe(Effect.orDie)
    }
  })
}) {}
