-- A callback body is stored once (issue 23): a provider that sends the same signed body again (a retry, a replay) is
-- answered 200 with the inbox row it is already stored under, and counted; nothing is stored twice, so nothing is
-- decided twice either. Rows stored before this migration have no hash and are not compared.
ALTER TABLE callback_inbox ADD COLUMN body_hash bytea;
-- [jooq ignore start]
CREATE UNIQUE INDEX callback_inbox_body ON callback_inbox (gateway, body_hash);
-- [jooq ignore stop]
