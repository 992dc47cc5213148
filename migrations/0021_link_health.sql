-- Link health: every acquired backlink is checked (its source page fetched, or its article read when the page is
-- one held here), and its status follows what the checks saw. A backlink carries its health (lost_reason, rel,
-- indexable, last_checked_at) and its schedule (next_check_at; the validators the host gave, for a conditional
-- request); each check is kept 90 days in backlink_checks.
alter table backlinks
  add column lost_reason text
    check (lost_reason in ('page_not_found', 'link_removed', 'redirected_away', 'unreachable')),
  add column rel text[] not null default '{}',
  add column indexable boolean,
  add column last_checked_at timestamptz,
  -- Null: never checked (no source or target address to check). New backlinks are spread over their first hour.
  add column next_check_at timestamptz default now() + random() * interval '1 hour',
  add column etag text,
  add column last_modified text,
  -- The host of source_url, lower case (the key of the per-host pacing); null when source_url has none.
  add column source_host text generated always as (
    lower(substring(source_url from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[^]/?#]*\]|[^:/?#]+)'))
  ) stored;

-- The backlinks there is something to check, spread over the next day so that the first round does not come at once.
update backlinks
set next_check_at = case
  when source_url is null or target_url is null then null
  else now() + random() * interval '1 day'
end;

-- The checks due on a host, soonest first (the checker takes a host's due backlinks one at a time), and the hosts
-- with checks due (the minute sweep: a range over next_check_at).
create index backlinks_host_due_idx on backlinks (source_host, next_check_at) where next_check_at is not null;
create index backlinks_due_idx on backlinks (next_check_at) where next_check_at is not null;
-- GET /sites/{id}/backlinks?status=…: a website's backlinks of one status, newest first.
create index backlinks_site_status_acquired_idx on backlinks (site_id, status, acquired_at desc, id desc);

-- A backlink whose source is an article held here is judged from the article's stored body: articles by address.
create index articles_url_idx on articles (url);

-- One check of a backlink: what was seen, kept 90 days (deleted by the hourly upkeep along checked_at).
create table backlink_checks (
  id bigint generated always as identity primary key,
  backlink_id bigint not null references backlinks (id) on delete cascade,
  checked_at timestamptz not null default now(),
  outcome text not null
    check (outcome in ('found', 'page_not_found', 'link_removed', 'redirected_away', 'unreachable')),
  -- False: judged from the stored body of the article the source address is (no fetch).
  fetched boolean not null,
  http_status int,
  final_url text,
  not_modified boolean not null default false,
  rel text[] not null default '{}',
  anchor_text text,
  indexable boolean,
  duration_ms int not null,
  error text
);
-- GET /backlinks/{id}: a backlink's last checks; the verdict's history of earlier checks.
create index backlink_checks_backlink_idx on backlink_checks (backlink_id, checked_at desc);
create index backlink_checks_checked_at_idx on backlink_checks (checked_at);

-- Per-host pacing, across every instance: a host is checked by one instance at a time (busy_until: the lease of the
-- instance checking it, longer than a check can take) and its requests are at least 2 s apart (next_request_at).
create table link_check_hosts (
  host text primary key,
  -- The lease of the instance checking the host (its own token, so that a late release never ends another's).
  busy_until timestamptz,
  busy_token uuid,
  next_request_at timestamptz not null default now()
);

-- The day counts of backlinks gain their status, so that the live and lost backlinks of a website (and of each
-- month) are sums over a few rows, however many backlinks it has.
alter table backlink_day_counts add column status text;
alter table backlink_day_counts drop constraint backlink_day_counts_key;
truncate backlink_day_counts;
insert into backlink_day_counts (site_id, day, category, status, count)
select site_id, (acquired_at at time zone 'UTC')::date, category, status, count(*)
from backlinks group by 1, 2, 3, 4;
alter table backlink_day_counts
  add constraint backlink_day_counts_key unique nulls not distinct (site_id, day, category, status);

create or replace function backlinks_count_days() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into backlink_day_counts as c (site_id, day, category, status, count)
    select site_id, (acquired_at at time zone 'UTC')::date, category, status, count(*)
    from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (site_id, day, category, status) do update set count = c.count + excluded.count;
    return null;
  elsif tg_op = 'UPDATE' then
    insert into backlink_day_counts as c (site_id, day, category, status, count)
    select site_id, day, category, status, sum(n)
    from (
      select site_id, (acquired_at at time zone 'UTC')::date as day, category, status, -1 as n from old_rows
      union all
      select site_id, (acquired_at at time zone 'UTC')::date, category, status, 1 from new_rows
    ) changes
    group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4
    on conflict (site_id, day, category, status) do update set count = c.count + excluded.count;
  else
    insert into backlink_day_counts as c (site_id, day, category, status, count)
    select site_id, (acquired_at at time zone 'UTC')::date, category, status, -count(*)
    from old_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (site_id, day, category, status) do update set count = c.count + excluded.count;
  end if;
  if found then
    delete from backlink_day_counts c where c.count = 0 and c.site_id in (select site_id from old_rows);
  end if;
  return null;
end
$$;
