-- The status projection keeps only what its readers use: search by status (tenant, status, newest first) and the
-- timers (shard, due_at), with last_seq to keep a row from going back. Recipient, reference, gateway and the
-- acceptance time are on the message's row, which a search by status joins when it filters on them; attempts, the
-- provider id, the last error and the time of the last change are in the history every answer folds. Each copy cost
-- about 45 bytes per row version and WAL on every upsert.
-- PostgreSQL only marks a dropped column: rows written before keep their bytes until they are rewritten (the next
-- upsert of the message, or a rebuild of the projection, which the `rebuild-projection` command does from the log).
ALTER TABLE message_status DROP COLUMN recipient;
ALTER TABLE message_status DROP COLUMN reference;
ALTER TABLE message_status DROP COLUMN gateway;
ALTER TABLE message_status DROP COLUMN provider_id;
ALTER TABLE message_status DROP COLUMN accepted_at;
ALTER TABLE message_status DROP COLUMN updated_at;
ALTER TABLE message_status DROP COLUMN attempts;
ALTER TABLE message_status DROP COLUMN last_error;
