-- Per-website, per-UTC-day counts of articles (by status) and backlinks (by category), so that a list's
-- `meta.total` and the stats are sums over at most one row per day instead of a count over every row of the
-- website: at a million articles that count read a million index entries on every list request.
--
-- The counts are kept by statement-level triggers on `articles` and `backlinks`, in the transaction of the
-- statement that changes the rows (an import, a deletion by a website's cascade, or any SQL run behind the
-- service's back), so they are exact whenever the rows are. Each trigger sees the statement's rows once
-- (transition tables), adds them up per (website, day, status or category) and applies the differences in key
-- order, so that a bulk insert writes one counter row per day rather than one per article and concurrent writers
-- take counter rows in the same order. A counter that reaches zero is deleted. The tables have no foreign key:
-- deleting a website deletes its rows through the cascade, and the triggers then take the counts down to nothing.
--
-- `day` is the UTC day of the timestamp (null: no timestamp), as `withinUtcDays` (src/SqlFormats.ts) bounds it:
-- `ts >= from 00:00 UTC and ts < (to + 1) 00:00 UTC` holds exactly when `day >= from and day <= to`.

create table article_day_counts (
  site_id bigint not null,
  day date,
  status text,
  count bigint not null,
  -- meta.total of GET /sites/{id}/articles (any of from, to, status) and the articles of GET /sites/{id}/stats:
  -- a range over `day` of one website along this index, `status` checked on the way.
  constraint article_day_counts_key unique nulls not distinct (site_id, day, status)
);

create table backlink_day_counts (
  site_id bigint not null,
  day date,
  category text not null,
  count bigint not null,
  -- meta.total of GET /sites/{id}/backlinks (any of from, to; the web pages' category) and the backlinks of
  -- GET /sites/{id}/stats: a range over `day` of one website along this index.
  constraint backlink_day_counts_key unique nulls not distinct (site_id, day, category)
);

create function articles_count_days() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into article_day_counts as c (site_id, day, status, count)
    select site_id, (published_at at time zone 'UTC')::date, status, count(*)
    from new_rows group by 1, 2, 3 order by 1, 2, 3
    on conflict (site_id, day, status) do update set count = c.count + excluded.count;
    return null;
  elsif tg_op = 'UPDATE' then
    insert into article_day_counts as c (site_id, day, status, count)
    select site_id, day, status, sum(n)
    from (
      select site_id, (published_at at time zone 'UTC')::date as day, status, -1 as n from old_rows
      union all
      select site_id, (published_at at time zone 'UTC')::date, status, 1 from new_rows
    ) changes
    group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
    on conflict (site_id, day, status) do update set count = c.count + excluded.count;
  else
    insert into article_day_counts as c (site_id, day, status, count)
    select site_id, (published_at at time zone 'UTC')::date, status, -count(*)
    from old_rows group by 1, 2, 3 order by 1, 2, 3
    on conflict (site_id, day, status) do update set count = c.count + excluded.count;
  end if;
  if found then
    delete from article_day_counts c where c.count = 0 and c.site_id in (select site_id from old_rows);
  end if;
  return null;
end
$$;

create function backlinks_count_days() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into backlink_day_counts as c (site_id, day, category, count)
    select site_id, (acquired_at at time zone 'UTC')::date, category, count(*)
    from new_rows group by 1, 2, 3 order by 1, 2, 3
    on conflict (site_id, day, category) do update set count = c.count + excluded.count;
    return null;
  elsif tg_op = 'UPDATE' then
    insert into backlink_day_counts as c (site_id, day, category, count)
    select site_id, day, category, sum(n)
    from (
      select site_id, (acquired_at at time zone 'UTC')::date as day, category, -1 as n from old_rows
      union all
      select site_id, (acquired_at at time zone 'UTC')::date, category, 1 from new_rows
    ) changes
    group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
    on conflict (site_id, day, category) do update set count = c.count + excluded.count;
  else
    insert into backlink_day_counts as c (site_id, day, category, count)
    select site_id, (acquired_at at time zone 'UTC')::date, category, -count(*)
    from old_rows group by 1, 2, 3 order by 1, 2, 3
    on conflict (site_id, day, category) do update set count = c.count + excluded.count;
  end if;
  if found then
    delete from backlink_day_counts c where c.count = 0 and c.site_id in (select site_id from old_rows);
  end if;
  return null;
end
$$;

-- TRUNCATE fires no row triggers: it empties the counts with the table (also when a truncate of sites cascades).
create function truncate_day_counts() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'articles' then
    truncate article_day_counts;
  else
    truncate backlink_day_counts;
  end if;
  return null;
end
$$;

-- A trigger with transition tables takes one event; an UPDATE trigger with them cannot name columns, so the update
-- triggers run for every update (an edit of a body too) and find no difference to apply.
create trigger articles_count_days_insert after insert on articles
  referencing new table as new_rows for each statement execute function articles_count_days();
create trigger articles_count_days_update after update on articles
  referencing old table as old_rows new table as new_rows for each statement execute function articles_count_days();
create trigger articles_count_days_delete after delete on articles
  referencing old table as old_rows for each statement execute function articles_count_days();
create trigger articles_count_days_truncate after truncate on articles
  for each statement execute function truncate_day_counts();

create trigger backlinks_count_days_insert after insert on backlinks
  referencing new table as new_rows for each statement execute function backlinks_count_days();
create trigger backlinks_count_days_update after update on backlinks
  referencing old table as old_rows new table as new_rows for each statement execute function backlinks_count_days();
create trigger backlinks_count_days_delete after delete on backlinks
  referencing old table as old_rows for each statement execute function backlinks_count_days();
create trigger backlinks_count_days_truncate after truncate on backlinks
  for each statement execute function truncate_day_counts();

insert into article_day_counts (site_id, day, status, count)
select site_id, (published_at at time zone 'UTC')::date, status, count(*) from articles group by 1, 2, 3;

insert into backlink_day_counts (site_id, day, category, count)
select site_id, (acquired_at at time zone 'UTC')::date, category, count(*) from backlinks group by 1, 2, 3;
