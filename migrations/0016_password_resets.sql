-- Password reset links ("Forgot password?" on the sign-in page): single-use, valid for 30 minutes. A link's token is
-- a selector, stored as it is to find the row, and a verifier, stored only as its SHA-256 hash and compared in
-- constant time. Times are written by the service from its own clock, and expiry is decided against that clock.
create table password_resets (
  selector text primary key,
  verifier_hash bytea not null,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- Set when the link sets a password; a second use is refused.
  used_at timestamptz
);
-- A reset ends the user's other links.
create index password_resets_user_id_idx on password_resets (user_id);
-- Pruning of expired links.
create index password_resets_expires_at_idx on password_resets (expires_at);

-- Requests for a reset mail are throttled like sign-in, with slots of their own per e-mail and per client address.
alter table sign_in_slots drop constraint sign_in_slots_kind_check;
alter table sign_in_slots add constraint sign_in_slots_kind_check
  check (kind in ('email', 'ip', 'reset_email', 'reset_ip'));
