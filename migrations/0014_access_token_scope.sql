-- An access token may carry less than its grant: a refresh that asks for `content:read` on a grant that can also
-- edit gets a token that can only read (RFC 6749 §6). Null, for every other token, means its grant's scope, which
-- the person may change on the connection page.
alter table oauth_access_tokens add column scope text;
