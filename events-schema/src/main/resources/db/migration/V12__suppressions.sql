-- The suppression list (issue 26, API.md "Suppression list"): one append-only table of changes, from which the current
-- list is derived (a recipient is suppressed when its latest change is an ADD). Every change says who (the key's
-- actor), when and why, and nothing is ever updated or deleted: the history support reads is the table itself, and a
-- fact is written once (DESIGN.md, the write budget). Writers take the table in EXCLUSIVE mode (readers are not
-- blocked), so ids commit in order and a reader that has seen id n has seen every change before it: the workers'
-- caches catch up by asking for the changes after the last id they applied. Each change also sends
-- NOTIFY sendlog_suppressions in its transaction, so those caches hear of it at commit.
CREATE TABLE suppression_changes (
    id        bigint  NOT NULL GENERATED ALWAYS AS IDENTITY,
    tenant    varchar NOT NULL,
    recipient varchar NOT NULL,
    action    varchar NOT NULL,
    reason    varchar,
    actor     varchar NOT NULL,
    at        timestamp with time zone NOT NULL,
    CONSTRAINT suppression_changes_pk PRIMARY KEY (id),
    CONSTRAINT suppression_changes_action CHECK (action IN ('ADD', 'REMOVE'))
);
-- A tenant's list in recipient order (keyset pages), a recipient's latest change and its history: one index serves all.
CREATE INDEX suppression_changes_by_recipient ON suppression_changes (tenant, recipient, id);
