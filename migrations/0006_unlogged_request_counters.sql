-- The per-minute request counters need no crash safety: after a crash (or a failover to a standby, where unlogged
-- tables start empty) the current minute's windows simply start again. Unlogged, the upsert that every request
-- makes writes no WAL and its commit waits for no flush, so the counter row of a busy key stays locked for far
-- less time and concurrent requests of that key queue far less. Edit quotas (edit_counters) stay logged: they
-- commit with the edits they count.
alter table request_counters set unlogged;
