-- The protected links of an article's body, read off the sanitiser's tree when the service writes the body, so
-- that an edit or a read need not parse the current body again. They stand next to the SHA-256 of the body they
-- were read from (its UTF-8 bytes) and count only while that matches the body: a body written any other way
-- (directly in SQL, say) has its links parsed afresh. Both are null until the service first writes the body.
alter table articles
  add column protected_links jsonb,
  add column protected_links_sha256 bytea;
