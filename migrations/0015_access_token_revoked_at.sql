-- When an access token was revoked on its own (RFC 7009), so that a client presenting it later is told it was revoked
-- rather than that it expired. Its expiry is still moved to the revocation, so the lookup of live tokens is as
-- before. A token of a revoked grant is told so by the grant's revoked_at.
alter table oauth_access_tokens add column revoked_at timestamptz;
