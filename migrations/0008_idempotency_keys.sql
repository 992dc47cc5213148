-- Idempotency-Key on article writes: the first request's answer, kept 24 hours per credential and key, so that a
-- retry replays it instead of changing the article twice. status and body are null while the first request runs.
create table idempotency_keys (
  credential text not null,
  key text not null,
  request_sha256 text not null,
  status integer,
  body text,
  content_type text,
  created_at timestamptz not null default now(),
  primary key (credential, key)
);
-- Expired keys are deleted by age.
create index idempotency_keys_created_at_idx on idempotency_keys (created_at);
