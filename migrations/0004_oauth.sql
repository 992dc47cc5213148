-- The OAuth 2.1 authorization server for MCP clients, and the web sessions its sign-in page opens. Every secret
-- (session id, authorization code, access and refresh token, client secret) is stored only as its SHA-256 hash.
-- Times are written by the service from its own clock, and expiry is decided against that clock.

-- Clients registered through dynamic client registration (RFC 7591).
create table oauth_clients (
  id bigint generated always as identity primary key,
  -- The public identifier handed to the client; /authorize and /token look clients up by it.
  client_id text not null unique,
  client_name text,
  redirect_uris text[] not null,
  grant_types text[] not null,
  response_types text[] not null,
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('none', 'client_secret_post', 'client_secret_basic')),
  -- Only for confidential clients (client_secret_post / client_secret_basic).
  client_secret_hash bytea,
  created_at timestamptz not null
);

-- Server-side sessions of the sign-in page (cookie cbs_session).
create table web_sessions (
  id bigint generated always as identity primary key,
  id_hash bytea not null,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
-- Every page request looks its session up by the cookie's hash.
create unique index web_sessions_id_hash_key on web_sessions (id_hash);
create index web_sessions_user_id_idx on web_sessions (user_id);
-- Pruning of expired sessions.
create index web_sessions_expires_at_idx on web_sessions (expires_at);

-- Failed sign-in attempts, for throttling by e-mail and by client address.
create table sign_in_failures (
  id bigint generated always as identity primary key,
  email text not null,
  ip text,
  at timestamptz not null
);
-- Throttling counts one e-mail's recent failures (e-mail stored lower-cased)...
create index sign_in_failures_email_at_idx on sign_in_failures (email, at);
-- ...and one address's.
create index sign_in_failures_ip_at_idx on sign_in_failures (ip, at) where ip is not null;
-- Pruning by age.
create index sign_in_failures_at_idx on sign_in_failures (at);

-- Authorization codes: single-use, short-lived, bound to client, redirect URI, PKCE challenge and resource.
create table oauth_codes (
  code_hash bytea primary key,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  redirect_uri text not null,
  -- Whether the authorization request named the redirect URI (then the token request must repeat it).
  redirect_uri_given boolean not null,
  code_challenge text not null,
  resource text,
  scope text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- Set when the code is redeemed (or burned by a failed attempt); a second attempt is a reuse.
  used_at timestamptz,
  -- Set on the first reuse; tokens issued from the code are revoked then, and no new ones are issued.
  reused_at timestamptz
);
create index oauth_codes_expires_at_idx on oauth_codes (expires_at);

-- A grant: what one Allow gave one client for one user. Its access and refresh tokens hang off it, so revoking
-- the grant (code reuse, refresh token reuse) revokes all of them at once.
create table oauth_grants (
  id bigint generated always as identity primary key,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  -- The authorization code the grant was issued from.
  code_hash bytea not null,
  scope text not null,
  resource text,
  created_at timestamptz not null,
  revoked_at timestamptz
);
-- Reuse of a code revokes the grants issued from it.
create index oauth_grants_code_hash_idx on oauth_grants (code_hash);
create index oauth_grants_user_id_idx on oauth_grants (user_id);

create table oauth_access_tokens (
  token_hash bytea primary key,
  grant_id bigint not null references oauth_grants (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index oauth_access_tokens_grant_id_idx on oauth_access_tokens (grant_id);
create index oauth_access_tokens_expires_at_idx on oauth_access_tokens (expires_at);

-- Refresh tokens rotate: each use issues a new one. A used token still works once more within a short grace
-- window (a client retrying after a lost response); any later use revokes the whole grant.
create table oauth_refresh_tokens (
  token_hash bytea primary key,
  grant_id bigint not null references oauth_grants (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  -- Whether the one retry allowed within the grace window has been spent.
  grace_used boolean not null default false
);
create index oauth_refresh_tokens_grant_id_idx on oauth_refresh_tokens (grant_id);
create index oauth_refresh_tokens_expires_at_idx on oauth_refresh_tokens (expires_at);
