-- The event log: what happened to every accepted message, appended and never updated.
--
-- Partitions of messages and message_events are created ahead of time by the service
-- (PartitionManager: CREATE TABLE + CHECK + ATTACH PARTITION). There is deliberately no
-- DEFAULT partition: it would block DETACH PARTITION CONCURRENTLY and the later creation of
-- a matching partition. An insert with no partition fails its transaction (the client gets
-- a 503, never a 202).
--
-- The "-- [jooq ignore start/stop]" markers hide PostgreSQL-only syntax from the jOOQ code
-- generator, which reads these files without a database.

-- One row per accepted message, written once in the accepting transaction, never updated.
-- Partitioned by its time-ordered id (UUIDv7) exactly like message_events, so compaction
-- drops both together.
CREATE TABLE messages (
    id              uuid        NOT NULL,
    tenant          varchar        NOT NULL,
    shard           smallint    NOT NULL,
    reference       varchar,
    idempotency_key varchar,
    recipient       varchar        NOT NULL,
    body            varchar        NOT NULL,
    gateway         varchar        NOT NULL,
    metadata        jsonb,
    accepted_at     timestamp with time zone NOT NULL,
    CONSTRAINT messages_pk PRIMARY KEY (id)
)
-- [jooq ignore start]
PARTITION BY RANGE (id)
-- [jooq ignore stop]
;

-- Search by tenant, recipient and reference, newest first (ids are time-ordered).
CREATE INDEX messages_tenant_id ON messages (tenant, id);
CREATE INDEX messages_recipient_id ON messages (recipient, id);
CREATE INDEX messages_reference_id ON messages (reference, id);

-- A tenant's client idempotency keys must be unique across partitions, which a partitioned
-- table cannot enforce; they live here with an expiry and are removed in small batches.
CREATE TABLE idempotency_keys (
    tenant       varchar      NOT NULL,
    client_key   varchar      NOT NULL,
    message_id   uuid      NOT NULL,
    request_hash bytea     NOT NULL,
    expires_at   timestamp with time zone NOT NULL,
    CONSTRAINT idempotency_keys_pk PRIMARY KEY (tenant, client_key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- Positions are global and increase, but commit out of order; tail readers therefore order
-- by (xid, position) and read only below the snapshot's xmin (DESIGN.md invariant 12).
CREATE SEQUENCE message_events_position_seq;

CREATE TABLE message_events (
    message_id uuid     NOT NULL,
    -- 1, 2, 3... per message. Appending with the expected next seq is the concurrency
    -- control: of two writers racing for the same seq, exactly one wins.
    seq        integer  NOT NULL,
    position   bigint   NOT NULL DEFAULT nextval('message_events_position_seq'),
    -- pg_current_xact_id() of the writing transaction, as a bigint (xid8 with its epoch).
    xid        bigint   NOT NULL
    -- [jooq ignore start]
        DEFAULT (pg_current_xact_id()::text::bigint)
    -- [jooq ignore stop]
    ,
    shard      smallint NOT NULL,
    type       varchar     NOT NULL,
    version    smallint NOT NULL,
    actor      varchar     NOT NULL,
    at         timestamp with time zone NOT NULL,
    data       jsonb    NOT NULL,
    CONSTRAINT message_events_pk PRIMARY KEY (message_id, seq)
)
-- [jooq ignore start]
PARTITION BY RANGE (message_id)
-- [jooq ignore stop]
;

-- The projector tails every event of its shards.
CREATE INDEX message_events_tail ON message_events (shard, xid, position);

-- The poller tails only the events that create work; the partial index stays small.
-- [jooq ignore start]
CREATE INDEX message_events_work ON message_events (shard, xid, position)
    WHERE type IN ('ACCEPTED', 'REDRIVEN');
-- [jooq ignore stop]

-- API keys, stored as SHA-256 hashes (hex). A key belongs to one tenant and has one role.
CREATE TABLE api_keys (
    key_hash   varchar NOT NULL, -- lower-case hex SHA-256 of the key
    tenant     varchar  NOT NULL,
    role       varchar  NOT NULL,
    name       varchar  NOT NULL,
    created_at timestamp with time zone NOT NULL DEFAULT now(),
    CONSTRAINT api_keys_pk PRIMARY KEY (key_hash),
    CONSTRAINT api_keys_role CHECK (role IN ('client', 'support', 'admin'))
);
