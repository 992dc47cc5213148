import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, ApiKeyId } from "../Domain/Ids.js"
import { rfc3339 } from "../SqlFormats.js"

export class ApiKeyRow extends Schema.Class<ApiKeyRow>("ApiKeyRow")({
  id: ApiKeyId,
  account_id: AccountId,
  name: Schema.String,
  prefix: Schema.String,
  is_admin: Schema.Boolean,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
}) {}

const KeyMatch = Schema.Struct({
  id: ApiKeyId,
  account_id: AccountId,
  is_admin: Schema.Boolean,
  key_hash: Schema.Uint8ArrayFromSelf
})

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("Auth/ApiKeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.unsafe(
      `id, account_id, name, prefix, is_admin, ${rfc3339("created_at")} as created_at, ${rfc3339("last_used_at")} as last_used_at, ${rfc3339("revoked_at")} as revoked_at`
    )

    const insert = SqlSchema.single({
      Request: Schema.Struct({
        account_id: AccountId,
        name: Schema.String,
        prefix: Schema.String,
        key_hash: Schema.Uint8ArrayFromSelf,
        is_admin: Schema.Boolean
      }),
      Result: ApiKeyRow,
      execute: (req) => sql`insert into api_keys ${sql.insert(req)} returning ${columns}`
    })

    // Looks a live key up by its hash and marks it used, at most once a minute so reads stay cheap.
    const findLive = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: KeyMatch,
      execute: (hash) => sql`
        with k as (
          select id, account_id, is_admin, key_hash, last_used_at from api_keys
          where key_hash = ${hash} and revoked_at is null
        ), touched as (
          update api_keys set last_used_at = now() from k
          where api_keys.id = k.id and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
        )
        select id, account_id, is_admin, key_hash from k`
    })

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
      revoke: (id: ApiKeyId) => revoke(id).pipe(Effect.orDie),
      listForAccount: (accountId: AccountId) => listForAccount(accountId).pipe(Effect.orDie)
    }
  })
}) {}
