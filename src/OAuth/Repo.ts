import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId, UserId } from "../Domain/Ids.js"
import { countRequestSql, editsUsedSql } from "../Limits/Counters.js"
import { insertRow } from "../Sql/InsertRow.js"

const Hash = Schema.Uint8ArrayFromSelf

/** An authorization code as stored, when it is claimed for redemption. */
export class CodeRow extends Schema.Class<CodeRow>("CodeRow")({
  client_id: Schema.String,
  user_id: UserId,
  redirect_uri: Schema.String,
  redirect_uri_given: Schema.Boolean,
  code_challenge: Schema.String,
  resource: Schema.NullOr(Schema.String),
  scope: Schema.String,
  expired: Schema.Boolean
}) {}

/** The grant a refresh token belongs to. */
export class GrantRow extends Schema.Class<GrantRow>("GrantRow")({
  grant_id: Schema.Number,
  client_id: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String)
}) {}

/** An authorization code as it is stored: the hash of the code, whom and what it was issued for, and its times. */
type CodeInsert = {
  readonly code_hash: Uint8Array
  readonly client_id: string
  readonly user_id: UserId
  readonly redirect_uri: string
  readonly redirect_uri_given: boolean
  readonly code_challenge: string
  readonly resource: string | null
  readonly scope: string
  readonly created_at: string
  readonly expires_at: string
}

const AccessMatch = Schema.Struct({
  user_id: UserId,
  account_id: AccountId,
  is_admin: Schema.Boolean,
  scope: Schema.String
})
const CountedAccessMatch = Schema.Struct({
  ...AccessMatch.fields,
  client_id: Schema.String,
  count: Schema.Number,
  edits: Schema.Number
})

/**
 * Authorization codes, grants and tokens. Every secret is looked up by its SHA-256 hash; every time comes from the
 * service's clock (ISO strings), never from the database's `now()`.
 */
export class OAuthRepo extends Effect.Service<OAuthRepo>()("OAuth/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertCode = (row: CodeInsert) => insertRow(sql, "oauth_codes", row)

    // Marks the code used whatever happens next, so that it can never be redeemed twice, even concurrently.
    const claimCode = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Hash, now: Schema.String }),
      Result: CodeRow,
      execute: ({ hash, now }) => sql`
        update oauth_codes set used_at = ${now}::timestamptz
        where code_hash = ${hash} and used_at is null
        returning client_id, user_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope,
          expires_at <= ${now}::timestamptz as expired`
    })

    const codeExists = (hash: Uint8Array) =>
      sql<{ n: number }>`select count(*)::int as n from oauth_codes where code_hash = ${hash}`.pipe(
        Effect.map((rows) => (rows[0]?.n ?? 0) > 0),
        Effect.orDie
      )

    /** Locks the code's row for the rest of the transaction; whether it has been reused meanwhile. */
    const lockCodeReused = (hash: Uint8Array) =>
      sql<{ reused: boolean }>`
        select reused_at is not null as reused from oauth_codes where code_hash = ${hash} for update`.pipe(
        Effect.map((rows) => rows[0]?.reused ?? true),
        Effect.orDie
      )

    /** A reused code: remember it, and revoke every grant (so every token) issued from it. */
    const revokeForReusedCode = (hash: Uint8Array, now: string) =>
      Effect.zipRight(
        sql`update oauth_codes set reused_at = coalesce(reused_at, ${now}::timestamptz) where code_hash = ${hash}`,
        sql`update oauth_grants set revoked_at = ${now}::timestamptz where code_hash = ${hash} and revoked_at is null`
      ).pipe(Effect.asVoid, Effect.orDie)

    const insertGrant = (row: {
      readonly client_id: string
      readonly user_id: UserId
      readonly code_hash: Uint8Array
      readonly scope: string
      readonly resource: string | null
      readonly created_at: string
    }) =>
      sql<{ id: number }>`insert into oauth_grants ${sql.insert(row)} returning id`.pipe(
        Effect.map((rows) => rows[0]!.id),
        Effect.orDie
      )

    const insertTokens = (tokens: {
      readonly grant_id: number
      readonly access_hash: Uint8Array
      readonly access_expires_at: string
      /** What the access token may do when it is less than its grant allows; null: what its grant allows. */
      readonly access_scope: string | null
      readonly refresh: { readonly hash: Uint8Array; readonly expires_at: string } | undefined
      readonly created_at: string
    }) =>
      Effect.gen(function* () {
        yield* sql`insert into oauth_access_tokens ${sql.insert({
          token_hash: tokens.access_hash,
          grant_id: tokens.grant_id,
          scope: tokens.access_scope,
          created_at: tokens.created_at,
          expires_at: tokens.access_expires_at
        })}`
        if (tokens.refresh === undefined) return
        yield* sql`insert into oauth_refresh_tokens ${sql.insert({
          token_hash: tokens.refresh.hash,
          grant_id: tokens.grant_id,
          created_at: tokens.created_at,
          expires_at: tokens.refresh.expires_at
        })}`
      }).pipe(Effect.orDie)

    /**
     * Uses a refresh token: the first use, or the one retry allowed while the first use is younger than
     * `graceStart`. None when the token is unknown, expired, of another client, already used up, or revoked.
     */
    const useRefreshToken = SqlSchema.findOne({
      Request: Schema.Struct({ hash: Hash, clientId: Schema.String, now: Schema.String, graceStart: Schema.String }),
      Result: GrantRow,
      execute: ({ hash, clientId, now, graceStart }) => sql`
        update oauth_refresh_tokens r
        set used_at = coalesce(r.used_at, ${now}::timestamptz), grace_used = r.used_at is not null
        from oauth_grants g
        where r.token_hash = ${hash} and g.id = r.grant_id and g.client_id = ${clientId}
          and g.revoked_at is null and r.expires_at > ${now}::timestamptz
          and (r.used_at is null or (not r.grace_used and r.used_at > ${graceStart}::timestamptz))
        returning g.id as grant_id, g.client_id, g.scope, g.resource`
    })

    /** The grant of a refresh token that has already been used (for reuse detection). */
    const grantOfUsedRefreshToken = (hash: Uint8Array, clientId: string) =>
      sql<{ grant_id: number }>`
        select r.grant_id from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
        where r.token_hash = ${hash} and g.client_id = ${clientId} and r.used_at is not null`.pipe(
        Effect.map((rows) => rows[0]?.grant_id),
        Effect.orDie
      )

    const revokeGrant = (grantId: number, now: string) =>
      sql`update oauth_grants set revoked_at = coalesce(revoked_at, ${now}::timestamptz) where id = ${grantId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** The grant and client of a refresh token, whatever its state (for revocation). */
    const refreshTokenOwner = (hash: Uint8Array) =>
      sql<{ grant_id: number; client_id: string }>`
        select r.grant_id, g.client_id from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
        where r.token_hash = ${hash}`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /** The client of an access token, whatever its state (for revocation). */
    const accessTokenOwner = (hash: Uint8Array) =>
      sql<{ client_id: string }>`
        select g.client_id from oauth_access_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${hash}`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * Ends one access token now: it is kept (until pruned) marked revoked, with its expiry moved to `now` (so that
     * the lookup of live tokens needs no other condition).
     */
    const revokeAccessToken = (hash: Uint8Array, now: string) =>
      sql`
        update oauth_access_tokens
        set expires_at = least(expires_at, ${now}::timestamptz), revoked_at = coalesce(revoked_at, ${now}::timestamptz)
        where token_hash = ${hash}`.pipe(Effect.asVoid, Effect.orDie)

    /**
     * What became of an access token that is not live: revoked (on its own, or with its grant), expired, or nothing
     * (unknown, or pruned a day after it ended).
     */
    const accessTokenEnd = (hash: Uint8Array, now: string) =>
      sql<{ revoked: boolean; expired: boolean }>`
        select t.revoked_at is not null or g.revoked_at is not null as revoked,
          t.expires_at <= ${now}::timestamptz as expired
        from oauth_access_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${hash}`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * The live access token whose hash is `hash`, its request counted in the per-minute window that starts at
     * `windowStart` (under `counterPrefix` and the user's id, as Limits/Repo.countRequest counts), with the window's
     * count and the changes its account has made on `day`: one round trip, as for an API key. The match also marks
     * its grant as used now, unless that was done within the last minute.
     */
    const findAccessCounting = (
      hash: Uint8Array,
      now: string,
      counter: { readonly prefix: string; readonly windowStart: string; readonly day: string }
    ) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: CountedAccessMatch,
        execute: () => sql`
          with found as (
            select g.id as grant_id, g.client_id, g.last_used_at, coalesce(t.scope, g.scope) as scope, u.id as user_id,
              u.account_id, u.is_admin
            from oauth_access_tokens t
            join oauth_grants g on g.id = t.grant_id
            join users u on u.id = g.user_id
            where t.token_hash = ${hash} and t.expires_at > ${now}::timestamptz and g.revoked_at is null
          ), used as (
            update oauth_grants set last_used_at = ${now}::timestamptz
            where id in (
              select grant_id from found
              where last_used_at is null or last_used_at < ${now}::timestamptz - interval '1 minute'
            )
          ), counted as (
            ${countRequestSql(sql, sql`${counter.prefix} || found.user_id`, counter.windowStart, sql`from found`)}
          )
          select user_id, account_id, is_admin, scope, client_id, (select count from counted) as count,
            ${editsUsedSql(sql, sql`found.account_id`, counter.day)} as edits
          from found`
      })(undefined).pipe(Effect.orDie)

    /** Deletes codes and tokens that expired before `before` (along their expiry indexes). */
    const pruneExpired = (before: string) =>
      Effect.all(
        [
          sql`delete from oauth_codes where expires_at < ${before}::timestamptz`,
          sql`delete from oauth_access_tokens where expires_at < ${before}::timestamptz`,
          sql`delete from oauth_refresh_tokens where expires_at < ${before}::timestamptz`
        ],
        { discard: true }
      ).pipe(Effect.orDie)

    return {
      insertCode,
      claimCode: (hash: Uint8Array, now: string) => claimCode({ hash, now }).pipe(Effect.orDie),
      codeExists,
      lockCodeReused,
      revokeForReusedCode,
      insertGrant,
      insertTokens,
      useRefreshToken: (req: Parameters<typeof useRefreshToken>[0]) => useRefreshToken(req).pipe(Effect.orDie),
      grantOfUsedRefreshToken,
      revokeGrant,
      refreshTokenOwner,
      accessTokenOwner,
      revokeAccessToken,
      accessTokenEnd,
      findAccessCounting,
      pruneExpired
    }
  })
}) {}
