-- Scheduled send (issue 26). A message's sendAt is part of its acceptance: a column of the message row, written once
-- and never updated, null when the client sent none (a nullable column without a default is a catalog change only:
-- existing partitions are not rewritten). The history shows SCHEDULED from it at seq 2 when it was after the
-- acceptance; a sendAt already past at accept means "now" (API.md) and the message is sent at once.
ALTER TABLE messages ADD COLUMN send_at timestamp with time zone;

-- What the due scan reads: one row per message still waiting for its time, inserted in the accept transaction (only
-- for a scheduled message) and deleted in the transaction that appends what its time asks for (REDRIVEN with reason
-- DUE, or EXPIRED when the validity ends first), so the table holds only the waiting backlog and the scan reads its
-- due head through the primary key, never the messages. due_at is the earlier of send_at and valid_until: a message
-- whose validity ends before its time is looked at then and expires. Rows are deleted rather than dropped by partition:
-- a watermark over send_at would skip a message whose accept commits after the scan passed its time, and a deleted
-- row of this narrow, unpartitioned table costs one WAL record and one dead tuple, for scheduled messages only.
CREATE TABLE scheduled (
    due_at     timestamp with time zone NOT NULL,
    message_id uuid                     NOT NULL,
    CONSTRAINT scheduled_pk PRIMARY KEY (due_at, message_id)
);
