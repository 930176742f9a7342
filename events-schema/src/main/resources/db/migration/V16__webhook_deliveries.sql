-- Status webhooks, deliveries (issue 27, API.md "Status webhooks", DESIGN invariant 17). A delivery is owed for every
-- status event a tenant's registration asks for; the row is written by the statement that appends the event, in the
-- same transaction (EventStore.append, AcceptWriter for ACCEPTED and SCHEDULED), so an event never exists without the
-- delivery it owes, and no delivery without its event. Keyed by the event, (message id, seq): the event id of the body.
--
-- Unlike the event log this is a work table, updated in place: a delivery moves through few states (owed, then
-- delivered or dead) and its timer (due_at) moves at each attempt. Its rows are the webhook's own write cost, counted
-- apart from the log's in scripts/bench-write-cost. Delivered rows are purged after webhooks.keepDelivered.
--
-- state: 0 owed, 1 delivered, 2 dead. due_at: when the dispatcher is next to put the delivery on the webhook stream
-- (the event's time at first, the end of a lease while a job for it is out, the retry's time after a failed attempt);
-- null once delivered or dead. owed_since: the start of the 24 h of retries (the event's time, or the time of a
-- re-drive). lease: how many times it was put on the stream; a job names the lease it was put there
-- under, and only the job of the current lease may record the outcome, so a job that outlived its lease (a slow
-- worker, a stream entry reclaimed twice) cannot overwrite a newer one's.
CREATE TABLE webhook_deliveries (
    message_id   uuid     NOT NULL,
    seq          integer  NOT NULL,
    tenant       varchar  NOT NULL,
    status       varchar  NOT NULL,
    event_at     timestamp with time zone NOT NULL,
    owed_since   timestamp with time zone NOT NULL,
    state        smallint NOT NULL DEFAULT 0,
    attempts     integer  NOT NULL DEFAULT 0,
    lease        integer  NOT NULL DEFAULT 0,
    due_at       timestamp with time zone,
    last_outcome varchar,
    done_at      timestamp with time zone,
    CONSTRAINT webhook_deliveries_pk PRIMARY KEY (message_id, seq),
    CONSTRAINT webhook_deliveries_state CHECK (state IN (0, 1, 2)),
    CONSTRAINT webhook_deliveries_due CHECK ((state = 0) = (due_at IS NOT NULL))
);
-- What the dispatcher scans: owed deliveries by due time (a partial index, so delivered and dead rows leave it).
CREATE INDEX webhook_deliveries_due_at ON webhook_deliveries (due_at) WHERE state = 0;
-- Support's list of dead deliveries per tenant, newest first.
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (tenant, done_at DESC, message_id, seq) WHERE state = 2;

-- Every attempt's outcome, append-only: what support sees in a message's history.
CREATE TABLE webhook_attempts (
    message_id  uuid     NOT NULL,
    seq         integer  NOT NULL,
    attempt     integer  NOT NULL,
    at          timestamp with time zone NOT NULL,
    http_status smallint,
    outcome     varchar  NOT NULL,
    CONSTRAINT webhook_attempts_pk PRIMARY KEY (message_id, seq, attempt)
);
