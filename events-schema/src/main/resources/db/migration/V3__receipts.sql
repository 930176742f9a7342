-- Receipts: the callback inbox, what became of each callback, parked input and its resolutions.
-- All insert-only: nothing here is ever updated.

-- Every callback whose signature checked out, stored raw (exact bytes) before it is answered 200.
CREATE TABLE callback_inbox (
    id          bigint  NOT NULL GENERATED ALWAYS AS IDENTITY,
    gateway     varchar NOT NULL,
    received_at timestamp with time zone NOT NULL,
    body        bytea   NOT NULL,
    CONSTRAINT callback_inbox_pk PRIMARY KEY (id)
);
CREATE INDEX callback_inbox_received_at ON callback_inbox (received_at);

-- What the callback worker made of an inbox row, written in the same transaction as its effect: an event
-- appended (RECEIPT), a row parked, or a duplicate that changed nothing. An inbox row without an outcome is
-- still to be processed (or held for a late match), and is published again by the sweeper.
CREATE TABLE callback_outcomes (
    inbox_id     bigint  NOT NULL,
    outcome      varchar NOT NULL,
    message_id   uuid,
    event_seq    integer,
    decided_at   timestamp with time zone NOT NULL,
    CONSTRAINT callback_outcomes_pk PRIMARY KEY (inbox_id),
    CONSTRAINT callback_outcomes_outcome CHECK (outcome IN ('appended', 'parked', 'duplicate'))
);

-- Provider input that could not be applied: never dropped, never guessed. Shown to support with the raw body.
CREATE TABLE parked_input (
    id         bigint  NOT NULL GENERATED ALWAYS AS IDENTITY,
    inbox_id   bigint  NOT NULL,
    gateway    varchar NOT NULL,
    reason     varchar NOT NULL,
    message_id uuid,
    parked_at  timestamp with time zone NOT NULL,
    CONSTRAINT parked_input_pk PRIMARY KEY (id)
);
CREATE INDEX parked_input_reason ON parked_input (reason);

-- How support resolved a parked row (apply a status, or discard with a note). One per parked row.
CREATE TABLE parked_resolutions (
    parked_id   bigint  NOT NULL,
    action      varchar NOT NULL,
    status      varchar,
    note        varchar,
    actor       varchar NOT NULL,
    message_id  uuid,
    resolved_at timestamp with time zone NOT NULL,
    CONSTRAINT parked_resolutions_pk PRIMARY KEY (parked_id),
    CONSTRAINT parked_resolutions_action CHECK (action IN ('apply', 'discard'))
);
