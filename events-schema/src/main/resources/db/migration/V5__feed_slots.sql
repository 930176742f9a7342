-- The change-data-capture feed (pipeline.feed: cdc). One row per logical replication slot the poller reads.
-- caught_up_at is NULL from the moment the slot is (re)created until a process has published the work committed
-- before the slot existed (which the slot never replays); epoch counts the times a process took the slot.
CREATE TABLE feed_slots (
    slot_name    varchar NOT NULL,
    epoch        bigint  NOT NULL DEFAULT 0,
    holder       varchar,
    taken_at     timestamp with time zone,
    caught_up_at timestamp with time zone,
    CONSTRAINT feed_slots_pk PRIMARY KEY (slot_name)
);
