-- The floor of the lean log's storage against the mutable outbox of scripts/bench, measured in plain SQL.
--
-- scripts/bench compares sendlog with a mutable outbox that keeps one row per message (a bigserial key, a unique
-- message id and a (status, id) index) and nothing else. sendlog keeps more facts than that row: the tenant and the
-- search indexes the API answers from, the claim that a cancel races against, the charge in a ledger keyed by its
-- effect, and the tail position the poller reads. This script writes what each keeps for one message's life from accept
-- to provider accepted (the scenario of scripts/bench), with the same row shapes and indexes as the schema (V8), in
-- the order the pipeline writes them (claims and acceptances of a batch in parallel, so out of id order), and prints
-- storage and WAL per message for the whole and for each fact, so it shows which guarantee costs what.
--
--   psql -h 127.0.0.1 -U postgres -v n=20000 -f benchmarks/lean-log-floor.sql
--
-- It creates and drops its own database (lean_log_floor).
\set ON_ERROR_STOP on
\if :{?n}
\else
\set n 20000
\endif
DROP DATABASE IF EXISTS lean_log_floor;
CREATE DATABASE lean_log_floor;
\c lean_log_floor
CREATE EXTENSION IF NOT EXISTS pg_walinspect;

CREATE SEQUENCE positions;
CREATE TABLE messages (
    id uuid NOT NULL, tenant text NOT NULL, shard int2 NOT NULL, reference text, idempotency_key text,
    recipient text NOT NULL, body text NOT NULL, gateway text NOT NULL, metadata jsonb, accepted_at timestamptz NOT NULL,
    xid int8 NOT NULL DEFAULT (pg_current_xact_id()::text::int8), position int8 NOT NULL DEFAULT nextval('positions'),
    PRIMARY KEY (id));
CREATE INDEX messages_tenant_id ON messages (tenant, id);
CREATE INDEX messages_recipient_id ON messages (recipient, id);
CREATE INDEX messages_reference_id ON messages (reference, id) WHERE reference IS NOT NULL;
CREATE INDEX messages_work ON messages (shard, xid, position);
CREATE TABLE message_events (
    message_id uuid NOT NULL, seq int4 NOT NULL, at timestamptz NOT NULL, type int2 NOT NULL, actor int4,
    attempt int2, publication int8, time2 timestamptz, gateway text, provider_id text,
    PRIMARY KEY (message_id, seq));
CREATE INDEX message_events_provider ON message_events (gateway, provider_id) WHERE type = 4;
CREATE TABLE ledger (effect_key uuid NOT NULL PRIMARY KEY, units int4 NOT NULL, charged_at timestamptz NOT NULL);
CREATE TABLE publications (id int8 PRIMARY KEY, published_at timestamptz NOT NULL, confirm_by timestamptz NOT NULL,
    check_at timestamptz, actor int4 NOT NULL, message_ids uuid[] NOT NULL, seqs int4[] NOT NULL, epochs int8[] NOT NULL);
CREATE INDEX publications_check ON publications (check_at) WHERE check_at IS NOT NULL;
CREATE INDEX publications_published_at ON publications (published_at);

CREATE TABLE outbox (
    id bigserial PRIMARY KEY, message_id uuid NOT NULL UNIQUE, recipient text NOT NULL, body text NOT NULL,
    status text NOT NULL DEFAULT 'PENDING', attempts int NOT NULL DEFAULT 0, provider_id text, last_error text,
    created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX outbox_status_id ON outbox (status, id);

CREATE FUNCTION uuid7(ms bigint) RETURNS uuid LANGUAGE sql AS $$
  SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8'
          || substr(md5(random()::text), 1, 15))::uuid $$;

-- The lean log, as scripts/bench drives it: accepts in group commits of 16, a publication per 16, then claims and
-- provider acceptances one transaction each, in shuffled order (16 workers finish in any order).
CREATE PROCEDURE lean(n int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; m uuid; b int; base bigint := 1764000000000;
BEGIN
  FOR b IN 0 .. n / 16 - 1 LOOP
    SELECT array_agg(uuid7(base + b * 16 + i) ORDER BY i) INTO ids FROM generate_series(0, 15) i;
    INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at)
      SELECT x, 'bench', (abs(hashtext(x::text)) % 16)::int2, '+49151' || lpad((b * 16 + o)::text, 7, '0'),
             'benchmark message ' || (b * 16 + o), 'sim', now()
      FROM unnest(ids) WITH ORDINALITY AS t(x, o);
    COMMIT;
    INSERT INTO publications VALUES (b, now(), now() + interval '30 s', now() + interval '30 s', 1, ids,
                                     array_fill(1, ARRAY[16]), array_fill(1::int8, ARRAY[16]));
    COMMIT;
    FOR m IN SELECT x FROM unnest(ids) x ORDER BY random() LOOP
      INSERT INTO message_events (message_id, seq, at, type, actor, attempt, publication, time2)
        VALUES (m, 3, now(), 3, 2, 1, b, now() + interval '60 s');
      COMMIT;
    END LOOP;
    FOR m IN SELECT x FROM unnest(ids) x ORDER BY random() LOOP
      INSERT INTO message_events (message_id, seq, at, type, actor, attempt, gateway, provider_id)
        VALUES (m, 4, now(), 4, 2, 1, 'sim', 'p' || (abs(hashtext(m::text)) % 100000));
      INSERT INTO ledger VALUES (m, 1, now());
      COMMIT;
    END LOOP;
    -- The timers' check of the publication, once all are sent: its next check moves to the reconciliation window.
    UPDATE publications SET check_at = now() + interval '48 h' WHERE id = b;
    COMMIT;
  END LOOP;
END $$;

-- The mutable outbox of scripts/bench: an autocommitted INSERT per message, the relay's UPDATE to QUEUED, the
-- worker's UPDATE to SENT.
CREATE PROCEDURE outbox(n int) LANGUAGE plpgsql AS $$
DECLARE b int; r record;
BEGIN
  FOR b IN 0 .. n / 16 - 1 LOOP
    FOR i IN 0 .. 15 LOOP
      INSERT INTO outbox (message_id, recipient, body) VALUES (gen_random_uuid(), '+49151' || lpad((b * 16 + i)::text, 7, '0'),
                                                               'benchmark message ' || (b * 16 + i));
      COMMIT;
    END LOOP;
    FOR r IN SELECT id FROM outbox WHERE status = 'PENDING' ORDER BY id LIMIT 16 LOOP
      UPDATE outbox SET status = 'QUEUED', updated_at = now() WHERE id = r.id;
    END LOOP;
    COMMIT;
    FOR r IN SELECT id FROM outbox WHERE status = 'QUEUED' ORDER BY random() LIMIT 16 LOOP
      UPDATE outbox SET status = 'SENT', provider_id = 'p' || r.id, attempts = 1, updated_at = now() WHERE id = r.id;
      COMMIT;
    END LOOP;
  END LOOP;
END $$;

CHECKPOINT;
SELECT pg_current_wal_lsn() AS lean_start \gset
CALL lean(:n);
SELECT pg_current_wal_lsn() AS lean_end \gset
CHECKPOINT;
SELECT pg_current_wal_lsn() AS outbox_start \gset
CALL outbox(:n);
SELECT pg_current_wal_lsn() AS outbox_end \gset

\echo
\echo Storage per message (table and its indexes, bytes), and what each part of the lean log keeps
SELECT rel AS "relation", round(bytes::numeric / :n) AS "B per message", why AS "the fact it keeps" FROM (VALUES
  ('messages (heap)', pg_relation_size('messages'), 'the acceptance: recipient, body, tenant, gateway, time, tail position'),
  ('messages primary key', pg_relation_size('messages_pkey'), 'read by id'),
  ('messages (tenant, id)', pg_relation_size('messages_tenant_id'), 'search: a tenant''s newest messages'),
  ('messages (recipient, id)', pg_relation_size('messages_recipient_id'), 'search by recipient'),
  ('messages (shard, xid, position)', pg_relation_size('messages_work'), 'the poller''s snapshot-safe tail (invariant 12)'),
  ('message_events (heap)', pg_relation_size('message_events'), 'the claim (invariants 5, 16) and the provider''s acceptance'),
  ('message_events primary key', pg_relation_size('message_events_pkey'), 'one writer wins each seq (the concurrency control)'),
  ('message_events (gateway, provider_id)', pg_relation_size('message_events_provider'), 'receipt matching without our reference'),
  ('ledger (heap + key)', pg_total_relation_size('ledger'), 'one charge per message (invariant 3)'),
  ('publications', pg_total_relation_size('publications'), 'the batch put on the stream; the timers'' watch'),
  ('outbox (heap)', pg_relation_size('outbox'), 'the mutable row, three versions per message (no VACUUM ran)'),
  ('outbox indexes', pg_indexes_size('outbox'), 'its key, unique message id, (status, id)')) AS t(rel, bytes, why);

SELECT round((pg_total_relation_size('messages') + pg_total_relation_size('message_events') + pg_total_relation_size('ledger')
              + pg_total_relation_size('publications'))::numeric / :n) AS "lean log B/msg",
       round(pg_total_relation_size('outbox')::numeric / :n) AS "outbox B/msg",
       round((pg_total_relation_size('messages') + pg_total_relation_size('message_events') + pg_total_relation_size('ledger')
              + pg_total_relation_size('publications'))::numeric / pg_total_relation_size('outbox'), 2) AS "ratio",
       round((pg_total_relation_size('messages') + pg_total_relation_size('message_events')
              + pg_total_relation_size('publications') - pg_relation_size('messages_tenant_id')
              - pg_relation_size('messages_recipient_id'))::numeric / pg_total_relation_size('outbox'), 2)
           AS "ratio without the ledger and search indexes the outbox lacks";

\echo
\echo WAL per message
SELECT round(pg_wal_lsn_diff(:'lean_end', :'lean_start') / :n) AS "lean log", round(pg_wal_lsn_diff(:'outbox_end', :'outbox_start') / :n) AS "outbox";

\c postgres
DROP DATABASE lean_log_floor;
