-- Compaction: which days were folded into snapshots, and the steps each run went through (insert-only logs).

CREATE TABLE compacted_days (
    day          date    NOT NULL,
    messages     integer NOT NULL,
    events_in    bigint  NOT NULL,
    snapshots    integer NOT NULL,
    compacted_at timestamp with time zone NOT NULL,
    CONSTRAINT compacted_days_pk PRIMARY KEY (day)
);

CREATE TABLE compaction_steps (
    day    date    NOT NULL,
    step   varchar NOT NULL,
    detail varchar,
    at     timestamp with time zone NOT NULL DEFAULT now()
);
CREATE INDEX compaction_steps_day ON compaction_steps (day, at);
