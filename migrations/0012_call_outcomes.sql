-- What a call came to beyond its status: the revision a change saved (its row commits with the change), and whether
-- the call was a preview (dry_run: nothing saved) or the replay of an earlier answer under its Idempotency-Key
-- (nothing saved again). The activity pages mark previews and replays, link a change to its revision and show the
-- revision's reason; a revision's page names the call that saved it (by article and revision, along
-- audit_log_article_at_idx).
-- Both columns are added without a default or a constraint, so that adding them changes only the catalog: a CHECK
-- would scan every day's partition of a log that may hold millions of rows, under the lock that holds off every
-- writer. The values come from the service alone ('dry_run' or 'replay', src/Domain/CallLog.ts).
alter table audit_log add column revision integer;
alter table audit_log add column note text;
