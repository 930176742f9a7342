-- The lean log (issue 23): the event log must cost less than the mutable outbox it replaces.
--
-- What changes, and why (the numbers are WAL bytes per message measured with pg_walinspect, see the README):
-- * The messages row is the acceptance. It gets the tail columns (xid, position) and its own work index, and no
--   ACCEPTED row is appended any more: the history shows ACCEPTED from the row (seq 1).
-- * A poller's publication of a batch is one row of `publications` (the message ids, the work event each published,
--   the shard epochs), not a PUBLISHED row per message. A claim names its publication; the history shows PUBLISHED
--   from it at the seq after the work event. Publications are also what the timers watch (see below).
-- * Event rows are typed: a small type code, a small actor id (the `actors` dictionary) and the few columns each type
--   needs; no jsonb. Rows written before this migration keep their JSON payload in the legacy_* columns and are read
--   through the codec's upcasters, as before.
-- * An append is a plain INSERT with the expected seq; a unique violation is the lost race (ON CONFLICT wrote a
--   speculative insertion and its confirmation per row).
-- * Indexes per appended row: the primary key, and only for the few types that need one a partial index: REDRIVEN
--   (the poller's work), PROVIDER_ACCEPTED (receipt matching by gateway and provider id, replacing provider_refs),
--   and the event that made a message final (search by final status, replacing the status projection). No index over
--   every event: nothing tails every event any more.
-- * The ledger is keyed by its effect key alone (the message id); tenant, gateway and provider id are facts of the
--   message and of its PROVIDER_ACCEPTED event.
-- * The status projection is gone. Search by a final status reads the final index; search by a status in flight reads
--   the messages newest first and folds them; the timers work from the publications (confirm, claim, retry and
--   reconciliation deadlines of the messages each publication put on the stream).
--
-- Run it with the pipeline stopped: it rewrites the ledger and updates every event row once.

-- Codes used below (events-schema: EventType.code, FinalStatus.code, RedriveReason, ReceiptKind).
--   types: ACCEPTED 1, PUBLISHED 2, CLAIMED 3, PROVIDER_ACCEPTED 4, ATTEMPT_FAILED 5, REJECTED 6, REDRIVEN 7, DEAD 8,
--          RECEIPT 9, OUTCOME_UNKNOWN 10, RESOLVED 11, COMPACTED 12
--   final statuses: DELIVERED 1, UNDELIVERED 2, UNKNOWN 3, REJECTED 4, DEAD 5, EXPIRED 6, CANCELLED 7

-- Who wrote an event: names (api, timer, poller-host-pid, admin:name...) kept once, rows carry the id.
CREATE TABLE actors (
    id   integer NOT NULL GENERATED ALWAYS AS IDENTITY,
    name varchar NOT NULL,
    CONSTRAINT actors_pk PRIMARY KEY (id),
    CONSTRAINT actors_name UNIQUE (name)
);

-- The messages row is the ACCEPTED event: it carries the tail columns the poller reads.
ALTER TABLE messages ADD COLUMN xid bigint;
ALTER TABLE messages ADD COLUMN position bigint;
-- [jooq ignore start]
UPDATE messages m SET xid = e.xid, position = e.position
FROM message_events e WHERE e.message_id = m.id AND e.seq = 1;
UPDATE messages SET xid = 0, position = 0 WHERE xid IS NULL;
ALTER TABLE messages ALTER COLUMN xid SET DEFAULT (pg_current_xact_id()::text::bigint);
ALTER TABLE messages ALTER COLUMN position SET DEFAULT nextval('message_events_position_seq');
-- [jooq ignore stop]
ALTER TABLE messages ALTER COLUMN xid SET NOT NULL;
ALTER TABLE messages ALTER COLUMN position SET NOT NULL;
CREATE INDEX messages_work ON messages (shard, xid, position);

-- Event rows: the JSON columns become the legacy payload, the typed columns follow.
ALTER TABLE message_events RENAME COLUMN type TO legacy_type;
ALTER TABLE message_events RENAME COLUMN version TO legacy_version;
ALTER TABLE message_events RENAME COLUMN actor TO legacy_actor;
ALTER TABLE message_events RENAME COLUMN data TO legacy_data;
ALTER TABLE message_events ALTER COLUMN legacy_type DROP NOT NULL;
ALTER TABLE message_events ALTER COLUMN legacy_version DROP NOT NULL;
ALTER TABLE message_events ALTER COLUMN legacy_actor DROP NOT NULL;
ALTER TABLE message_events ALTER COLUMN legacy_data DROP NOT NULL;
-- Only work events (REDRIVEN) carry the tail columns now.
ALTER TABLE message_events ALTER COLUMN xid DROP DEFAULT;
ALTER TABLE message_events ALTER COLUMN position DROP DEFAULT;
ALTER TABLE message_events ALTER COLUMN xid DROP NOT NULL;
ALTER TABLE message_events ALTER COLUMN position DROP NOT NULL;
ALTER TABLE message_events ALTER COLUMN shard DROP NOT NULL;
ALTER TABLE message_events ADD COLUMN type smallint;
ALTER TABLE message_events ADD COLUMN actor integer;
-- CLAIMED, PROVIDER_ACCEPTED, ATTEMPT_FAILED, REDRIVEN: the attempt; DEAD: the attempts made.
ALTER TABLE message_events ADD COLUMN attempt smallint;
-- REJECTED: the stage; REDRIVEN: the reason; RESOLVED: the action.
ALTER TABLE message_events ADD COLUMN code smallint;
-- RECEIPT: the receipt kind; RESOLVED: the kind applied.
ALTER TABLE message_events ADD COLUMN kind smallint;
-- RECEIPT: the callback inbox row; RESOLVED: the parked row.
ALTER TABLE message_events ADD COLUMN ref bigint;
-- CLAIMED, and REDRIVEN or DEAD after a publish timeout: the publication that put the job on the stream.
ALTER TABLE message_events ADD COLUMN publication bigint;
-- CLAIMED: the claim deadline; ATTEMPT_FAILED: the next attempt; RECEIPT: the provider's timestamp.
ALTER TABLE message_events ADD COLUMN time2 timestamp with time zone;
-- PROVIDER_ACCEPTED: the gateway and the provider's id; RECEIPT: the provider id it named.
ALTER TABLE message_events ADD COLUMN gateway varchar;
ALTER TABLE message_events ADD COLUMN provider_id varchar;
-- RECEIPT: the provider's status word; ATTEMPT_FAILED, REJECTED, DEAD, OUTCOME_UNKNOWN: the reason; RESOLVED: the note.
ALTER TABLE message_events ADD COLUMN detail varchar;
-- RECEIPT: the provider's error code.
ALTER TABLE message_events ADD COLUMN detail2 varchar;
-- COMPACTED: the snapshot, deflated.
ALTER TABLE message_events ADD COLUMN packed bytea;
-- The status this event made final (and its tenant), written by the writer that decided it, only on that event.
ALTER TABLE message_events ADD COLUMN status smallint;
ALTER TABLE message_events ADD COLUMN tenant varchar;

-- [jooq ignore start]
UPDATE message_events SET type = CASE legacy_type
    WHEN 'ACCEPTED' THEN 1 WHEN 'PUBLISHED' THEN 2 WHEN 'CLAIMED' THEN 3 WHEN 'PROVIDER_ACCEPTED' THEN 4
    WHEN 'ATTEMPT_FAILED' THEN 5 WHEN 'REJECTED' THEN 6 WHEN 'REDRIVEN' THEN 7 WHEN 'DEAD' THEN 8 WHEN 'RECEIPT' THEN 9
    WHEN 'OUTCOME_UNKNOWN' THEN 10 WHEN 'RESOLVED' THEN 11 WHEN 'COMPACTED' THEN 12 END,
  -- What the new indexes need of legacy rows: the payload itself stays in legacy_data and is read from there.
  attempt = CASE WHEN legacy_type IN ('REDRIVEN', 'PROVIDER_ACCEPTED') THEN (legacy_data->>'attempt')::smallint END,
  gateway = CASE WHEN legacy_type = 'PROVIDER_ACCEPTED' THEN legacy_data->>'gateway' END,
  provider_id = CASE WHEN legacy_type = 'PROVIDER_ACCEPTED' THEN legacy_data->>'providerId' END;
-- Rows of legacy types other than work events no longer need the tail columns' values for any index.
UPDATE message_events SET xid = NULL, position = NULL, shard = NULL WHERE legacy_type <> 'REDRIVEN';
-- The event that made each message final (as the status projection knew it) carries the status for search.
UPDATE message_events e SET status = CASE s.status WHEN 'DELIVERED' THEN 1 WHEN 'UNDELIVERED' THEN 2 WHEN 'UNKNOWN' THEN 3
        WHEN 'REJECTED' THEN 4 WHEN 'DEAD' THEN 5 END,
    tenant = s.tenant
FROM message_status s
WHERE e.message_id = s.message_id AND e.seq = s.last_seq
  AND s.status IN ('DELIVERED', 'UNDELIVERED', 'UNKNOWN', 'REJECTED', 'DEAD');
-- [jooq ignore stop]
ALTER TABLE message_events ALTER COLUMN type SET NOT NULL;

DROP INDEX message_events_tail;
-- [jooq ignore start]
DROP INDEX message_events_work;
-- The poller's work: REDRIVEN rows (new messages are found through messages_work).
CREATE INDEX message_events_work ON message_events (shard, xid, position) WHERE type = 7;
-- Receipt matching without our reference: the most recent use of a provider id on a gateway. Ids wrap and repeat,
-- so nothing is unique here.
CREATE INDEX message_events_provider ON message_events (gateway, provider_id) WHERE type = 4;
-- Search by final status: one entry per message that reached one (two when a late receipt overrode UNKNOWN).
CREATE INDEX message_events_final ON message_events (tenant, status, message_id) WHERE status IS NOT NULL;
-- [jooq ignore stop]

-- One row per batch a poller put on the send stream. Also what the timers watch: every message published here is
-- looked at when check_at comes (its confirm, claim, retry or reconciliation deadline), until it moved on to newer
-- work or reached a final status; then check_at is NULL.
CREATE SEQUENCE publications_id_seq;
-- [jooq ignore start]
CREATE TABLE publications (
    id           bigint    NOT NULL,
    published_at timestamp with time zone NOT NULL,
    confirm_by   timestamp with time zone NOT NULL,
    check_at     timestamp with time zone,
    actor        integer   NOT NULL,
    -- Parallel arrays, one element per message: its id, the seq of the work event published, its shard's epoch.
    message_ids  uuid[]    NOT NULL,
    seqs         integer[] NOT NULL,
    epochs       bigint[]  NOT NULL,
    CONSTRAINT publications_pk PRIMARY KEY (id)
);
CREATE INDEX publications_check ON publications (check_at) WHERE check_at IS NOT NULL;
-- The change-data-capture feed's shard owners ask which recent work a publication named (one entry per batch).
CREATE INDEX publications_published_at ON publications (published_at);
-- [jooq ignore stop]
INSERT INTO actors (name) VALUES ('upgrade');
-- [jooq ignore start]
-- Every message in flight when the log was upgraded, and past its publication, is watched by one publication, checked
-- at once (a message whose latest event is its work event is still owed to the poller, which publishes it as usual).
INSERT INTO publications (id, published_at, confirm_by, check_at, actor, message_ids, seqs, epochs)
SELECT nextval('publications_id_seq'), now(), now(), now(),
       (SELECT id FROM actors WHERE name = 'upgrade'), array_agg(f.message_id), array_agg(f.work_seq), array_agg(0::bigint)
FROM (
    SELECT m.id AS message_id, w.work_seq, (row_number() OVER (ORDER BY m.id) - 1) / 500 AS chunk
    FROM messages m
    CROSS JOIN LATERAL (
        SELECT coalesce(max(e.seq) FILTER (WHERE e.type IN (1, 7)), 1) AS work_seq, max(e.seq) AS last_seq
        FROM message_events e WHERE e.message_id = m.id
    ) w
    WHERE w.last_seq > w.work_seq
      AND NOT EXISTS (SELECT 1 FROM message_status s WHERE s.message_id = m.id
                      AND s.status IN ('DELIVERED', 'UNDELIVERED', 'UNKNOWN', 'REJECTED', 'DEAD'))
) f
GROUP BY f.chunk;
-- [jooq ignore stop]

-- The ledger keyed by its effect key alone: the message id (EffectKeys.charge).
ALTER TABLE ledger ALTER COLUMN effect_key TYPE uuid
-- [jooq ignore start]
    USING substring(effect_key FROM 8)::uuid
-- [jooq ignore stop]
;
DROP INDEX ledger_message_id;
ALTER TABLE ledger DROP COLUMN message_id;
ALTER TABLE ledger DROP COLUMN tenant;
ALTER TABLE ledger DROP COLUMN gateway;
ALTER TABLE ledger DROP COLUMN provider_id;

-- What the new layout replaces.
DROP TABLE provider_refs;
DROP TABLE message_status;
ALTER TABLE shard_leases DROP COLUMN project_xid;
ALTER TABLE shard_leases DROP COLUMN project_position;
