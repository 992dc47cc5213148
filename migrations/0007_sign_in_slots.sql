-- Sign-in throttling by slots taken before a password is checked. sign_in_failures was counted first and written
-- after the check, so guesses sent in parallel all passed the count. Now a sign-in takes a slot of its e-mail and
-- one of its client address in one statement each (an upsert that takes the row lock), or is refused; a wrong
-- password keeps its slots, a right one gives back its own. One row per e-mail (lower-cased) and per client address,
-- holding the times of the slots still held, pruned to the window as slots are taken.
create table sign_in_slots (
  kind text not null check (kind in ('email', 'ip')),
  key text not null,
  taken timestamptz[] not null,
  last_taken_at timestamptz not null,
  primary key (kind, key)
);
-- Pruning of rows whose slots are all long past.
create index sign_in_slots_last_taken_at_idx on sign_in_slots (last_taken_at);

drop table sign_in_failures;
