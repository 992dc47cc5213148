-- Why a call failed, beside its status: the `error` identifier and the `message` of its answer (a 409, 412, 422, …),
-- so that the activity pages say why and not only that it failed. The message is kept to one line of at most 300
-- characters by the service (src/Domain/CallLog.ts); the page shows it as text.
-- Added without a default or a constraint, so that adding them changes only the catalog of every day's partition
-- (see 0012_call_outcomes.sql).
alter table audit_log add column error text;
alter table audit_log add column message text;
