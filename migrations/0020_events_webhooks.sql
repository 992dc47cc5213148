-- Events: what happened in an account (an article changed or was published, a backlink was acquired or changed
-- status), each written in the transaction of the change that caused it, kept 30 days. `data` is the record as the
-- interface shows it at the time of the event. Within an account, ids commit in increasing order (Events/Repo.ts
-- takes the account's lock before it numbers them, as the last step of a transaction), so a reader that pages with
-- `after` never skips one.
create table events (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  site_id bigint references sites (id) on delete cascade,
  type text not null
    check (type in ('article.changed', 'article.published', 'backlink.acquired', 'backlink.status_changed')),
  data jsonb not null,
  created_at timestamptz not null default now()
);
-- GET /events: an account's events after a cursor, optionally of one website.
create index events_account_id_idx on events (account_id, id);
create index events_site_id_idx on events (site_id, id);
-- Retention: the events of more than 30 days ago are deleted by the hourly upkeep.
create index events_created_at_idx on events (created_at);

-- Webhook endpoints, managed like API keys: an address, the event types sent to it, and the secret deliveries are
-- signed with (Standard Webhooks, `whsec_…`). The secret signs, so it is kept as it is; it is shown once. After a
-- rotation, the previous secret also signs until `previous_secret_until`, so that a receiver can change over.
create table webhook_endpoints (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  url text not null,
  events text[] not null check (cardinality(events) > 0),
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  enabled boolean not null default true,
  -- Why the service disabled it (410 Gone, three days of failures); null when enabled, or disabled by a person.
  disabled_reason text,
  -- The first failure since the last success: three days of failures disable the endpoint.
  failing_since timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_endpoints_account_id_idx on webhook_endpoints (account_id, id);

-- A delivery: one event (or a test message) to one endpoint, attempted until it succeeds or its schedule ends.
-- `message_id` is the `webhook-id` header, the same on every attempt and resend, which receivers dedupe on.
create table webhook_deliveries (
  id bigint generated always as identity primary key,
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  event_id bigint references events (id) on delete cascade,
  message_id text not null,
  -- The message as sent: the event's `{ id, type, created_at, data }`, or a test message.
  payload jsonb not null,
  state text not null default 'pending' check (state in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_endpoint_id_idx on webhook_deliveries (endpoint_id, id);
create index webhook_deliveries_created_at_idx on webhook_deliveries (created_at);

-- Every attempt, kept 30 days: when, the answer's status (null when none came), how long, the first 1 KiB of the
-- answer, and what went wrong in words when nothing usable came back.
create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  attempted_at timestamptz not null,
  status integer,
  duration_ms integer not null,
  response text,
  error text
);
create index webhook_attempts_endpoint_id_idx on webhook_attempts (endpoint_id, id);
create index webhook_attempts_delivery_id_idx on webhook_attempts (delivery_id, id);
create index webhook_attempts_attempted_at_idx on webhook_attempts (attempted_at);
