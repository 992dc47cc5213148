-- Every successful change of an article stores a full snapshot of the result as a numbered revision.
create table article_revisions (
  id bigint generated always as identity primary key,
  article_id bigint not null references articles (id) on delete cascade,
  number integer not null,
  origin text not null check (origin in ('API', 'MCP', 'editor', 'rewrite')),
  reason text,
  -- Who made the change: an API key, or a signed-in user (MCP, editor).
  api_key_id bigint references api_keys (id) on delete set null,
  user_id bigint references users (id) on delete set null,
  title text,
  body text not null,
  meta_description text,
  featured_image_url text,
  created_at timestamptz not null default now()
);
-- Revision numbers are 1, 2, 3… per article; the history lists them newest first.
create unique index article_revisions_article_number_key on article_revisions (article_id, number desc);
