-- When an assistant last used its access to a user's account: set as its access token is accepted, at most once a
-- minute per grant (so a busy assistant writes the row once a minute, not once a request). The site-connection page
-- shows it beside when the assistant was connected; it reads it through oauth_grants_user_id_idx.
alter table oauth_grants add column last_used_at timestamptz;
