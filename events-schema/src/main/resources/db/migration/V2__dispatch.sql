-- Dispatch: shard leases with the tail cursors they fence, the ledger, provider references, and the
-- status projection that timers and search read.

-- A poller owns a shard while its lease has not expired. Every change of owner increments epoch, the
-- fencing token: a write made under an older epoch is refused. The tail cursors of the shard's
-- publisher and projector live here, so advancing one is fenced by the same row.
CREATE TABLE shard_leases (
    shard            smallint NOT NULL,
    owner            varchar,
    epoch            bigint   NOT NULL DEFAULT 0,
    expires_at       timestamp with time zone NOT NULL DEFAULT '1970-01-01 00:00:00+00',
    renewed_at       timestamp with time zone,
    -- The publisher's cursor: the last (xid, position) of a work event it has passed on.
    publish_xid      bigint   NOT NULL DEFAULT 0,
    publish_position bigint   NOT NULL DEFAULT 0,
    -- The projector's cursor: the last (xid, position) of any event it has folded.
    project_xid      bigint   NOT NULL DEFAULT 0,
    project_position bigint   NOT NULL DEFAULT 0,
    CONSTRAINT shard_leases_pk PRIMARY KEY (shard)
);

-- Live pollers announce themselves, so each can compute its fair share of the shards.
CREATE TABLE pollers (
    owner        varchar NOT NULL,
    heartbeat_at timestamp with time zone NOT NULL,
    CONSTRAINT pollers_pk PRIMARY KEY (owner)
);

-- What was charged. Insert-only. The key comes from one function (EffectKeys.charge) used by every
-- path that records an acceptance, so the unique constraint holds at most one charge per message.
CREATE TABLE ledger (
    effect_key  varchar NOT NULL,
    message_id  uuid    NOT NULL,
    tenant      varchar NOT NULL,
    gateway     varchar NOT NULL,
    provider_id varchar NOT NULL,
    units       integer NOT NULL,
    charged_at  timestamp with time zone NOT NULL,
    CONSTRAINT ledger_pk PRIMARY KEY (effect_key)
);
CREATE INDEX ledger_message_id ON ledger (message_id);

-- Which message a provider id stood for, per gateway and time. Insert-only. Provider ids are short
-- and wrap, so nothing here is unique on a provider id: a receipt matches the most recent use.
CREATE TABLE provider_refs (
    gateway     varchar NOT NULL,
    provider_id varchar NOT NULL,
    message_id  uuid    NOT NULL,
    accepted_at timestamp with time zone NOT NULL
);
CREATE INDEX provider_refs_lookup ON provider_refs (gateway, provider_id, accepted_at);

-- The status projection: one row per message, folded from the log in batches by the projector (off
-- every hot path). Never the truth: it can be dropped and rebuilt from the log. Timers read due_at,
-- search reads the rest.
CREATE TABLE message_status (
    message_id  uuid     NOT NULL,
    tenant      varchar  NOT NULL,
    shard       smallint NOT NULL,
    status      varchar  NOT NULL,
    last_seq    integer  NOT NULL,
    attempts    integer  NOT NULL,
    recipient   varchar  NOT NULL,
    reference   varchar,
    gateway     varchar  NOT NULL,
    provider_id varchar,
    accepted_at timestamp with time zone NOT NULL,
    updated_at  timestamp with time zone NOT NULL,
    -- The next timer (confirm, claim, retry) or the end of the reconciliation window; null when none.
    due_at      timestamp with time zone,
    last_error  varchar,
    CONSTRAINT message_status_pk PRIMARY KEY (message_id)
);
-- [jooq ignore start]
CREATE INDEX message_status_due ON message_status (shard, due_at) WHERE due_at IS NOT NULL;
-- [jooq ignore stop]
CREATE INDEX message_status_tenant_status ON message_status (tenant, status, message_id);
CREATE INDEX message_status_status ON message_status (status, message_id);
