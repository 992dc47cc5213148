import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema, Struct } from "effect"

export class ClientRow extends Schema.Class<ClientRow>("ClientRow")({
  client_id: Schema.String,
  client_name: Schema.NullOr(Schema.String),
  redirect_uris: Schema.Array(Schema.String),
  grant_types: Schema.Array(Schema.String),
  response_types: Schema.Array(Schema.String),
  token_endpoint_auth_method: Schema.Literal("none", "client_secret_post", "client_secret_basic"),
  client_secret_hash: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  /** Seconds since the epoch. */
  client_id_issued_at: Schema.Number
}) {}

const columns = `client_id, client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method,
  client_secret_hash, floor(extract(epoch from created_at))::float8 as client_id_issued_at`

/** A client to store: the fields of its row but the issue time, which comes from `created_at`. */
const ClientInsert = Schema.Struct({
  ...Struct.omit(ClientRow.fields, "client_id_issued_at"),
  token_endpoint_auth_method: Schema.String,
  created_at: Schema.String
})

export class OAuthClientsRepo extends Effect.Service<OAuthClientsRepo>()("OAuth/ClientsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Arrays are sent as PostgreSQL array literals, which is what text[] columns take.
    const inserting = (req: typeof ClientInsert.Type) => sql`
      insert into oauth_clients (client_id, client_name, redirect_uris, grant_types, response_types,
        token_endpoint_auth_method, client_secret_hash, created_at)
      values (${req.client_id}, ${req.client_name}, ${req.redirect_uris}::text[], ${req.grant_types}::text[],
        ${req.response_types}::text[], ${req.token_endpoint_auth_method}, ${req.client_secret_hash},
        ${req.created_at}::timestamptz)`

    const insert = SqlSchema.single({
      Request: ClientInsert,
      Result: ClientRow,
      execute: (req) => sql`${inserting(req)} returning ${sql.unsafe(columns)}`
    })

    /**
     * A client registered by its metadata document (its id is the document's URL): inserted the first time, its
     * metadata brought up to date when the document is fetched again.
     */
    const upsert = SqlSchema.single({
      Request: ClientInsert,
      Result: ClientRow,
      execute: (req) => sql`
        ${inserting(req)}
        on conflict (client_id) do update set client_name = excluded.client_name,
          redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types,
          response_types = excluded.response_types
        returning ${sql.unsafe(columns)}`
    })

    const find = SqlSchema.findOne({
      Request: Schema.String,
      Result: ClientRow,
      execute: (clientId) => sql`select ${sql.unsafe(columns)} from oauth_clients where client_id = ${clientId}`
    })

    return {
      insert: (req: Parameters<typeof insert>[0]) => insert(req).pipe(Effect.orDie),
      upsert: (req: Parameters<typeof upsert>[0]) => upsert(req).pipe(Effect.orDie),
      find: (clientId: string) => find(clientId).pipe(Effect.orDie)
    }
  })
}) {}
