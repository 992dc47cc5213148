-- Full-text search of a website's articles (GET /sites/{id}/articles?q=): title, target keyword and body text.
--
-- body_text is the body's readable text as the word count reads it (Html/WordCount.ts: no markup, no attribute
-- values), written by the service with every change of the body. Rows from before this migration have none yet: the
-- running service fills them in (Articles/SearchBackfill.ts), since the text is read by the service's own HTML
-- reading, not by SQL.
alter table articles add column body_text text;
-- What is searched, kept by the trigger below from the title (weight A), the target keyword (B) and the body text
-- (D), in the text search configuration of the website's language.
alter table articles add column search tsvector;

-- Accents are folded by the `unaccent` dictionary inside the text search configurations, so that the stored
-- vectors, the queries and the excerpts (ts_headline, which shows the original text) all agree; it exists on
-- PostgreSQL (contrib) and on the embedded one (loaded by Sql/Database.ts).
create extension if not exists unaccent;

-- The search configuration of each language (the primary subtag of a BCP 47 tag) for which PostgreSQL has a
-- stemmer; every other language uses search_simple (words as written, folded).
create table search_configs (
  language text primary key,
  config regconfig not null
);

do $$
declare
  pair text[];
begin
  execute 'create text search configuration search_simple (copy = simple)';
  execute 'alter text search configuration search_simple alter mapping for hword, hword_part, word with unaccent, simple';
  foreach pair slice 1 in array array[
    ['ar', 'arabic'], ['hy', 'armenian'], ['eu', 'basque'], ['ca', 'catalan'], ['da', 'danish'], ['nl', 'dutch'],
    ['en', 'english'], ['et', 'estonian'], ['fi', 'finnish'], ['fr', 'french'], ['de', 'german'], ['el', 'greek'],
    ['hi', 'hindi'], ['hu', 'hungarian'], ['id', 'indonesian'], ['ga', 'irish'], ['it', 'italian'],
    ['lt', 'lithuanian'], ['ne', 'nepali'], ['no', 'norwegian'], ['nb', 'norwegian'], ['nn', 'norwegian'],
    ['pt', 'portuguese'], ['ro', 'romanian'], ['ru', 'russian'], ['sr', 'serbian'], ['es', 'spanish'],
    ['sv', 'swedish'], ['ta', 'tamil'], ['tr', 'turkish'], ['yi', 'yiddish']
  ] loop
    if exists (select 1 from pg_ts_config where cfgname = pair[2])
        and exists (select 1 from pg_ts_dict where dictname = pair[2] || '_stem') then
      if not exists (select 1 from pg_ts_config where cfgname = 'search_' || pair[2]) then
        execute format('create text search configuration %I (copy = %I)', 'search_' || pair[2], pair[2]);
        execute format('alter text search configuration %I alter mapping for hword, hword_part, word with unaccent, %I',
          'search_' || pair[2], pair[2] || '_stem');
      end if;
      insert into search_configs values (pair[1], ('search_' || pair[2])::regconfig);
    end if;
  end loop;
end $$;

-- The configuration for a website's language tag (`en`, `en-GB`, `de`…; null or unknown: search_simple).
create function search_config(language text) returns regconfig
language sql stable parallel safe as $$
  select coalesce(
    (select c.config from search_configs c where c.language = lower(split_part(coalesce($1, ''), '-', 1))),
    'search_simple'::regconfig)
$$;

create function articles_search_update() returns trigger
language plpgsql as $$
declare
  config regconfig := search_config((select s.language from sites s where s.id = new.site_id));
begin
  new.search := setweight(to_tsvector(config, coalesce(new.title, '')), 'A')
    || setweight(to_tsvector(config, coalesce(new.target_keyword, '')), 'B')
    || setweight(to_tsvector(config, coalesce(new.body_text, '')), 'D');
  return new;
end $$;

create trigger articles_search before insert or update of title, target_keyword, body_text, site_id on articles
  for each row execute function articles_search_update();

-- A website whose language changes (an import may change it) has its articles' vectors made again, in the same
-- transaction: naming body_text in the update fires the trigger above.
create function sites_search_language() returns trigger
language plpgsql as $$
begin
  if search_config(new.language) is distinct from search_config(old.language) then
    update articles set body_text = body_text where site_id = new.id;
  end if;
  return new;
end $$;

create trigger sites_search_language after update of language on sites
  for each row execute function sites_search_language();

-- GET /sites/{id}/articles?q=: the matching articles are found by their vectors; the website is checked on the rows
-- found (a search answers at the pace of its matches, not of the website's size).
create index articles_search_idx on articles using gin (search);
-- The rows whose body text is still to be read (only rows from before this migration): empty once read.
create index articles_body_text_missing_idx on articles (id) where body_text is null;
