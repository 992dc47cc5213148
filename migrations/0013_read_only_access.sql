-- Read-only access: an API key may be made unable to change anything, and an assistant's grant already carries its
-- OAuth scope (`content:read`, or `content:read content:write`; the `mcp` of earlier grants means both).
alter table api_keys add column read_only boolean not null default false;
