-- Accounts, their users and API keys; websites with their articles and backlinks.

create table accounts (
  id bigint generated always as identity primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table users (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  email text not null,
  name text,
  password_hash text,
  is_admin boolean not null default false,
  created_at timestamptz not null default now()
);
-- Sign-in, `cbs key create --account E`, the import's account key and the admin `account` filter look users up by e-mail.
create unique index users_email_key on users (lower(email));
create index users_account_id_idx on users (account_id);

create table api_keys (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  name text not null,
  -- The first characters of the key, shown in lists so that a person can tell keys apart.
  prefix text not null,
  -- SHA-256 of the whole key; the key itself is never stored.
  key_hash bytea not null,
  is_admin boolean not null default false,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
-- Authentication looks a key up by its hash on every request.
create unique index api_keys_key_hash_key on api_keys (key_hash);
create index api_keys_account_id_idx on api_keys (account_id, id);

create table sites (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  name text,
  website_url text,
  language text,
  country text,
  geographic_scope text check (geographic_scope in ('local', 'regional', 'national', 'international')),
  industry text,
  created_at timestamptz not null default now()
);
-- GET /sites: an account's sites in id order.
create index sites_account_id_idx on sites (account_id, id);
-- Import is idempotent on (account, website URL).
create unique index sites_account_website_url_key on sites (account_id, website_url);

create table articles (
  id bigint generated always as identity primary key,
  site_id bigint not null references sites (id) on delete cascade,
  title text,
  url text,
  status text check (status in ('draft', 'scheduled', 'published')),
  published_at timestamptz,
  target_keyword text,
  word_count integer,
  featured_image_url text,
  meta_description text,
  body text not null default '',
  -- Number of the latest stored revision; 0 before the first change.
  revision integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- GET /sites/{id}/articles (with or without from/to) and the stats count: newest first, nulls last, then id.
create index articles_site_published_idx on articles (site_id, published_at desc nulls last, id desc);
-- The same list filtered by status.
create index articles_site_status_published_idx on articles (site_id, status, published_at desc nulls last, id desc);
-- Import is idempotent on (website, article URL).
create unique index articles_site_url_key on articles (site_id, url);

create table backlinks (
  id bigint generated always as identity primary key,
  site_id bigint not null references sites (id) on delete cascade,
  acquired_at timestamptz,
  source_domain text,
  source_url text,
  target_url text,
  anchor_text text,
  anchor_type text check (anchor_type in ('exact_match', 'partial_match', 'branded', 'naked_url', 'generic')),
  status text check (status in ('pending', 'live', 'lost')),
  category text not null check (category in ('industry', 'local')),
  created_at timestamptz not null default now()
);
-- GET /sites/{id}/backlinks and the stats counts: newest first, then id.
create index backlinks_site_acquired_idx on backlinks (site_id, acquired_at desc, id desc);
-- Import is idempotent on (website, source URL, target URL).
create unique index backlinks_site_source_target_key on backlinks (site_id, source_url, target_url);
