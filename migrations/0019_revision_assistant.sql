-- The assistant (OAuth client) that made a change through MCP, so that a revision names it (`actor` in
-- GET /articles/{id}/revisions). A plain column, without a default or a foreign key, so that adding it changes only
-- the catalog whatever the number of revisions; a client that no longer exists leaves the person's e-mail to name
-- the change.
alter table article_revisions add column oauth_client_id text;
