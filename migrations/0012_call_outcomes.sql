-- What a call came to beyond its status: the revision a change saved (its row commits with the change), and whether
-- the call was a preview (dry_run: nothing saved) or the replay of an earlier answer under its Idempotency-Key
-- (nothing saved again). The activity pages mark previews and replays, link a change to its revision and show the
-- revision's reason; a revision's page names the call that saved it (by article and revision, along
-- audit_log_article_at_idx).
alter table audit_log add column revision integer;
alter table audit_log add column note text check (note in ('dry_run', 'replay'));
