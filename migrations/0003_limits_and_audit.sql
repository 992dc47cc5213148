-- Request and edit limits live in the database so that every server instance shares them.

-- Requests per credential per minute (fixed one-minute windows), counted by one atomic upsert per request.
create table request_counters (
  credential text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (credential, window_start)
);
-- Old windows are deleted by age.
create index request_counters_window_start_idx on request_counters (window_start);

-- Successful article changes per account per UTC day; incremented inside the edit's own transaction.
create table edit_counters (
  account_id bigint not null references accounts (id) on delete cascade,
  day date not null,
  count integer not null,
  primary key (account_id, day)
);

-- Every API and MCP call.
create table audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  account_id bigint references accounts (id) on delete cascade,
  api_key_id bigint references api_keys (id) on delete set null,
  user_id bigint references users (id) on delete set null,
  origin text not null check (origin in ('API', 'MCP', 'editor', 'rewrite')),
  method text,
  path text,
  tool text,
  article_id bigint,
  status integer not null,
  duration_ms integer not null,
  request_id text
);
-- The article page's activity log: one article's calls, newest first.
create index audit_log_article_at_idx on audit_log (article_id, at desc, id desc) where article_id is not null;
-- An account's calls, newest first.
create index audit_log_account_at_idx on audit_log (account_id, at desc);
-- Pruning by age.
create index audit_log_at_idx on audit_log (at);
