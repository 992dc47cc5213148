-- The call log partitioned by UTC day (declarative range partitioning on `at`), so that retention drops whole days
-- (a detach and a drop: no delete, no vacuum, no bloat) and every read names the days it reads.
--
-- This migration changes names and catalogs only, so it holds its locks for a moment whatever the log's size (all
-- pending migrations run in one transaction: a copy of the rows here would keep every lock of the batch for as long
-- as the copy takes). The existing table is kept as `audit_log_unpartitioned`; new calls go to the partitioned
-- `audit_log` from the moment this commits. The service then moves the old rows into their days, newest day first,
-- a batch per transaction, and drops the old table once it is empty (`AuditLog.convert`: `cbs migrate` finishes it
-- before it returns; `cbs serve` does it in the background).

alter table audit_log rename to audit_log_unpartitioned;
alter sequence audit_log_id_seq rename to audit_log_unpartitioned_id_seq;
alter index audit_log_pkey rename to audit_log_unpartitioned_pkey;
alter index audit_log_article_at_idx rename to audit_log_unpartitioned_article_at_idx;
alter index audit_log_account_at_idx rename to audit_log_unpartitioned_account_at_idx;
alter index audit_log_at_idx rename to audit_log_unpartitioned_at_idx;
alter table audit_log_unpartitioned rename constraint audit_log_origin_check to audit_log_unpartitioned_origin_check;
alter table audit_log_unpartitioned rename constraint audit_log_account_id_fkey to audit_log_unpartitioned_account_id_fkey;
alter table audit_log_unpartitioned rename constraint audit_log_api_key_id_fkey to audit_log_unpartitioned_api_key_id_fkey;
alter table audit_log_unpartitioned rename constraint audit_log_user_id_fkey to audit_log_unpartitioned_user_id_fkey;

-- Ids go on from the old table's (a plain sequence: identity columns on partitioned tables differ between versions).
create sequence audit_log_id_seq;
select setval('audit_log_id_seq', (select coalesce(max(id), 0) + 1 from audit_log_unpartitioned), false);

create table audit_log (
  id bigint not null default nextval('audit_log_id_seq'),
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
  -- No primary key: nothing reads a call by its id (the sequence keeps ids unique), and each index of a partitioned
  -- table is one more index per day to write and for every read's plan to consider.
) partition by range (at);
alter sequence audit_log_id_seq owned by audit_log.id;

-- Each index below is made on every partition. Every read bounds `at` to a range of days, so it reads only those
-- days' partitions (src/Audit/Repo.ts; test/AuditPartitions.test.ts holds the plans to it).
-- The article page's activity log: one article's calls, newest first.
create index audit_log_article_at_idx on audit_log (article_id, at desc, id desc) where article_id is not null;
-- The account's activity log: its calls, newest first.
create index audit_log_account_at_idx on audit_log (account_id, at desc, id desc);

-- Rows for a day that has no partition land here rather than fail the call. The service reports them (a warning in
-- its log, a line of `cbs audit prune`) and moves them into a partition of their day.
create table audit_log_default partition of audit_log default;

-- Adds the partition `audit_log_YYYYMMDD` for a UTC day unless it exists; the day's rows in the default partition
-- move into it. Returns how many moved. The partition is made apart and attached, which locks the log only
-- against other changes of its partitions (writers go on); a lock that cannot be had within 2 s fails the call
-- rather than queue writers behind it.
create function audit_log_add_day(day date) returns bigint language plpgsql set lock_timeout = '2s' as $$
declare
  part text := 'audit_log_' || to_char(day, 'YYYYMMDD');
  lo text := to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00';
  hi text := to_char(day + 1, 'YYYY-MM-DD') || ' 00:00:00+00';
  moved bigint;
begin
  perform pg_advisory_xact_lock(hashtext('audit_log partitions'));
  if to_regclass(quote_ident(part)) is not null then
    return 0;
  end if;
  execute format('create table %I (like audit_log including defaults including constraints)', part);
  execute format(
    'with moved as (delete from audit_log_default where at >= %L and at < %L returning *) insert into %I select * from moved',
    lo, hi, part);
  get diagnostics moved = row_count;
  execute format('alter table audit_log attach partition %I for values from (%L) to (%L)', part, lo, hi);
  return moved;
end
$$;

-- Detaches and drops the day partitions before `first_kept`; returns their days.
create function audit_log_drop_days_before(first_kept date) returns setof date language plpgsql set lock_timeout = '2s' as $$
declare
  part record;
begin
  perform pg_advisory_xact_lock(hashtext('audit_log partitions'));
  for part in
    select c.relname, to_date(substr(c.relname, 11), 'YYYYMMDD') as day
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'audit_log'::regclass and c.relname ~ '^audit_log_[0-9]{8}$'
    order by c.relname
  loop
    if part.day < first_kept then
      execute format('alter table audit_log detach partition %I', part.relname);
      execute format('drop table %I', part.relname);
      return next part.day;
    end if;
  end loop;
end
$$;

-- Yesterday, today and a week ahead; the service keeps a week ahead from then on.
select audit_log_add_day(((now() at time zone 'UTC')::date + d)::date) from generate_series(-1, 7) d;
