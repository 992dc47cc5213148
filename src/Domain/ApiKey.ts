import { Schema } from "effect"
import { AccountId, ApiKeyId } from "./Ids.js"

/** An API key as it is listed: never its secret, only the prefix it starts with. */
export class ApiKeyRow extends Schema.Class<ApiKeyRow>("ApiKeyRow")({
  id: ApiKeyId,
  account_id: AccountId,
  name: Schema.String,
  prefix: Schema.String,
  is_admin: Schema.Boolean,
  read_only: Schema.Boolean,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
}) {}
