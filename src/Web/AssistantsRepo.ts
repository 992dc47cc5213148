import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { UserId } from "../Domain/Ids.js"
import { rfc3339 } from "../Sql/SqlFormats.js"

/** An assistant (OAuth client) with live access to a user's account. */
export class AssistantRow extends Schema.Class<AssistantRow>("AssistantRow")({
  client_id: Schema.String,
  client_name: Schema.NullOr(Schema.String),
  /** Where the client asked to be sent back after Allow (it registered them itself). */
  redirect_uris: Schema.Array(Schema.String),
  /** When it was first connected (its oldest live grant), and when it last used its access (null: never). */
  connected_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  /** The scopes of its live grants (see OAuth/Scopes.ts): whether it may only read, or also edit. */
  scopes: Schema.String
}) {}

/**
 * The site-connection page's view of the OAuth tables (migrations/0004_oauth.sql). Times come from the service's
 * clock (ISO strings), as everywhere in OAuth.
 */
export class AssistantsRepo extends Effect.Service<AssistantsRepo>()("Web/AssistantsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // A grant is live when it is not revoked and still has an unexpired access token or an unused, unexpired
    // refresh token. Follows oauth_grants_user_id_idx, then the tokens' grant_id indexes.
    const listLive = SqlSchema.findAll({
      Request: Schema.Struct({ userId: UserId, now: Schema.String }),
      Result: AssistantRow,
      execute: ({ userId, now }) => sql`
        select c.client_id, c.client_name, c.redirect_uris,
          ${sql.unsafe(rfc3339("min(g.created_at)"))} as connected_at,
          ${sql.unsafe(rfc3339("max(g.last_used_at)"))} as last_used_at,
          string_agg(distinct g.scope, ' ') as scopes
        from oauth_grants g
        join oauth_clients c on c.client_id = g.client_id
        where g.user_id = ${userId} and g.revoked_at is null
          and (
            exists (select 1 from oauth_access_tokens t
              where t.grant_id = g.id and t.expires_at > ${now}::timestamptz)
            or exists (select 1 from oauth_refresh_tokens r
              where r.grant_id = g.id and r.used_at is null and r.expires_at > ${now}::timestamptz)
          )
        group by c.client_id, c.client_name, c.redirect_uris
        order by min(g.created_at), c.client_id`
    })

    /**
     * Ends a client's access to a user's account in one statement: its grants are revoked (which every token check
     * looks at), their tokens deleted, and codes not yet redeemed burned so that none can start a new grant.
     * How many grants were revoked. The codes are found along oauth_codes_expires_at_idx (only live ones matter).
     */
    const revokeClient = SqlSchema.single({
      Request: Schema.Struct({ userId: UserId, clientId: Schema.String, now: Schema.String }),
      Result: Schema.Struct({ revoked: Schema.Number }),
      execute: ({ userId, clientId, now }) => sql`
        with grants as (
          update oauth_grants set revoked_at = ${now}::timestamptz
          where user_id = ${userId} and client_id = ${clientId} and revoked_at is null
          returning id
        ), access as (
          delete from oauth_access_tokens where grant_id in (select id from grants)
        ), refresh as (
          delete from oauth_refresh_tokens where grant_id in (select id from grants)
        ), codes as (
          update oauth_codes set used_at = ${now}::timestamptz
          where user_id = ${userId} and client_id = ${clientId} and used_at is null
            and expires_at > ${now}::timestamptz
        )
        select count(*)::int as revoked from grants`
    })

    /** Sets what the client's live grants allow (every token of theirs follows at once); how many changed. */
    const setScope = SqlSchema.single({
      Request: Schema.Struct({ userId: UserId, clientId: Schema.String, scope: Schema.String }),
      Result: Schema.Struct({ changed: Schema.Number }),
      execute: ({ userId, clientId, scope }) => sql`
        with changed as (
          update oauth_grants set scope = ${scope}
          where user_id = ${userId} and client_id = ${clientId} and revoked_at is null
          returning id
        )
        select count(*)::int as changed from changed`
    })

    return {
      setScope: (req: Parameters<typeof setScope>[0]) =>
        setScope(req).pipe(
          Effect.map((row) => row.changed),
          Effect.orDie
        ),
      listLive: (userId: UserId, now: string) => listLive({ userId, now }).pipe(Effect.orDie),
      revokeClient: (req: Parameters<typeof revokeClient>[0]) =>
        revokeClient(req).pipe(
          Effect.map((row) => row.revoked),
          Effect.orDie
        )
    }
  })
}) {}
