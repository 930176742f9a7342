package dev.sendlog.tools.loadtest;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.Compactor;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.accept.AcceptWriter;
import dev.sendlog.service.accept.AcceptedItem;
import dev.sendlog.service.accept.MessageDraft;
import dev.sendlog.service.accept.Submission;
import dev.sendlog.service.accept.SubmissionOutcome;
import dev.sendlog.service.log.Charge;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.IdBlocks;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.timers.Timers;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The write cost of one message's life (accept, publish, claim, provider accepted, intermediate receipt, final
 * receipt) through the event log, by the pipeline's own code (group-committed appends, the projector's upserts
 * after SENT and after the final receipt), against a mutable row of the classic outbox shape (one row per message,
 * its indexed status column updated at each step, claimed with FOR UPDATE SKIP LOCKED), on one PostgreSQL, in one
 * run. Prints WAL bytes per message, rows and index entries written, sizes, dead tuples, VACUUM's WAL, and the
 * event log's size after compaction.
 */
public final class WriteCost {
    private static final int BATCH = 500;

    // No pool: a connection's table statistics reach pg_stat_user_tables when it closes, and the row counts are read
    // from there right after each side's run.
    private final PGSimpleDataSource ds = new PGSimpleDataSource();
    private final DSLContext dsl;
    private final int messages;
    private final LocalDate day;

    public WriteCost(String jdbcUrl, String user, int messages) {
        ds.setUrl(jdbcUrl);
        ds.setUser(user);
        this.dsl = DSL.using(ds, SQLDialect.POSTGRES);
        this.messages = messages;
        this.day = LocalDate.now(ZoneOffset.UTC).minusDays(60);
    }

    public void run(PrintStream out) throws Exception {
        Migrations.migrate(ds);
        new PartitionManager(ds, Duration.ofSeconds(5)).ensure(day, 0);
        exec("""
                DROP TABLE IF EXISTS outbox_messages;
                CREATE TABLE outbox_messages (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, message_id uuid NOT NULL, tenant text NOT NULL,
                    recipient text NOT NULL, body text NOT NULL, gateway text NOT NULL, status text NOT NULL,
                    attempts integer NOT NULL DEFAULT 0, claimed_at timestamptz, provider_id text, updated_at timestamptz NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now());
                CREATE INDEX outbox_messages_status ON outbox_messages (status);
                CREATE INDEX outbox_messages_pending ON outbox_messages (id) WHERE status = 'PENDING';
                CREATE INDEX outbox_messages_provider ON outbox_messages (gateway, provider_id);
                CREATE INDEX outbox_messages_message ON outbox_messages (message_id);
                DROP TABLE IF EXISTS outbox_ledger;
                CREATE TABLE outbox_ledger (idempotency_key text PRIMARY KEY, message_id uuid NOT NULL, units integer NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now());
                """);
        exec("INSERT INTO shard_leases (shard, publish_xid) SELECT s, 9000000000000000000 "
                + "FROM generate_series(0, 15) s ON CONFLICT DO NOTHING");
        // The tenant has a status webhook for the final statuses (issue 27): each message owes one delivery, of
        // DELIVERED, written with its final receipt and then delivered once, as the webhook worker records it. Its
        // rows' WAL is counted apart from the log's (the webhook_* relations of the breakdown).
        exec(
                "DELETE FROM webhook_attempts; DELETE FROM webhook_deliveries; DELETE FROM webhooks WHERE tenant = 'demo'");
        exec(
                "INSERT INTO webhooks (tenant, url, events, secret, created_at, updated_at) VALUES ('demo', "
                        + "'https://203.0.113.1/hooks', '{DELIVERED,UNDELIVERED,UNKNOWN,REJECTED,DEAD,EXPIRED,CANCELLED}', '\\x00', now(), now())");
        exec("CHECKPOINT");

        Stats before = stats();
        long walStart = wal();
        String lsnStart = lsn();
        eventLog();
        long eventLogWal = wal() - walStart;
        WalBreakdown eventLogBreakdown = walByRelation(lsnStart, lsn());
        Stats eventLogStats = stats().minus(before);

        exec("CHECKPOINT");
        before = stats();
        walStart = wal();
        lsnStart = lsn();
        mutableOutbox();
        long outboxWal = wal() - walStart;
        WalBreakdown outboxBreakdown = walByRelation(lsnStart, lsn());
        Stats outboxStats = stats().minus(before);
        long vacuumStart = wal();
        exec("VACUUM outbox_messages");
        long vacuumWal = wal() - vacuumStart;
        // The event log's side updates one table in place too, the publications (the timers move each batch's next
        // check): the VACUUM that table needs is counted as the outbox's is (the service runs it where autovacuum will
        // not).
        long projectionVacuumStart = wal();
        exec("VACUUM publications");
        long projectionVacuumWal = wal() - projectionVacuumStart;

        long eventLogSize = size("messages") + size("message_events") + size("ledger") + size("actors");
        long projectionSize = size("publications");
        long outboxSize = size("outbox_messages") + size("outbox_ledger");
        long compactStart = wal();
        long compactStartNanos = System.nanoTime();
        Compactor compactor = new Compactor(ds, new EventCodec(), Duration.ofSeconds(5), s -> {});
        compactor.compact(day);
        compactor.forgetPublications();
        long compactionNanos = System.nanoTime() - compactStartNanos;
        long compactionWal = wal() - compactStart;
        long compactedSize = size("messages") + size("message_events") + size("ledger") + size("actors");
        // Compaction forgets the publications of compacted days; the maintenance vacuum returns their space.
        exec("VACUUM publications");
        long publicationsAfter = size("publications");
        List<String> compactedSizes = new ArrayList<>();
        for (String table : List.of(
                "message_events", "messages", "ledger", "actors", "publications", "outbox_messages", "outbox_ledger")) {
            long total = size(table);
            long heap = heapSize(table);
            compactedSizes.add(String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %.0f |",
                    table,
                    heap / 1024,
                    (total - heap) / 1024,
                    total / (double) messages));
        }

        double n = messages;
        out.printf(Locale.ROOT, "## Write cost of one message's life, %d messages (%s)%n", messages, Instant.now());
        out.println("| | event log (sendlog) | mutable outbox row (baseline) |");
        out.println("|---|---:|---:|");
        out.printf(Locale.ROOT, "| WAL bytes per message | %.0f | %.0f |%n", eventLogWal / n, outboxWal / n);
        // A checkpoint that falls inside one side's run makes it write full-page images the other may not: both are
        // shown, and the ratio without them (when pg_walinspect can tell).
        boolean imagesKnown =
                eventLogBreakdown.fullPageImageBytes() != null && outboxBreakdown.fullPageImageBytes() != null;
        if (imagesKnown) {
            out.printf(
                    Locale.ROOT,
                    "| of which full-page images (from the first change of a page after a checkpoint) | %.0f | %.0f |%n",
                    eventLogBreakdown.fullPageImageBytes() / n,
                    outboxBreakdown.fullPageImageBytes() / n);
        }
        out.printf(
                Locale.ROOT,
                "| + VACUUM needed to reclaim dead tuples (the event log's: its publications), WAL per message | %.0f | %.0f |%n",
                projectionVacuumWal / n,
                vacuumWal / n);
        out.printf(
                Locale.ROOT,
                "| rows inserted per message | %.1f | %.1f |%n",
                eventLogStats.inserted / n,
                outboxStats.inserted / n);
        out.printf(
                Locale.ROOT,
                "| rows updated per message (non-HOT) | %.1f (%.1f) | %.1f (%.1f) |%n",
                eventLogStats.updated / n,
                eventLogStats.nonHot / n,
                outboxStats.updated / n,
                outboxStats.nonHot / n);
        out.printf(
                Locale.ROOT,
                "| index entries written per message | %.1f | %.1f |%n",
                eventLogStats.indexEntries / n,
                outboxStats.indexEntries / n);
        out.printf(
                Locale.ROOT,
                "| dead tuples left on the hot tables | %d | %d |%n",
                eventLogStats.deadHot,
                outboxStats.deadHot);
        out.printf(
                Locale.ROOT,
                "| table + index size | %d kB (+ %d kB publications) | %d kB |%n",
                eventLogSize / 1024,
                projectionSize / 1024,
                outboxSize / 1024);
        out.printf(
                Locale.ROOT,
                "| after compaction (WAL %.0f B/message) | %d kB (+ %d kB publications) | %d kB (VACUUM returns no space) |%n",
                compactionWal / n,
                compactedSize / 1024,
                publicationsAfter / 1024,
                outboxSize / 1024);
        long webhookWal = eventLogBreakdown.webhookBytes();
        out.printf(
                Locale.ROOT,
                "| of which the status webhook's own rows (webhook_* relations; one delivery of DELIVERED per "
                        + "message, leased and delivered once) | %.0f | - |%n",
                webhookWal / n);
        out.printf(
                Locale.ROOT,
                "| webhook rows after delivery (deleted after webhooks.keepDelivered) | %d kB | - |%n",
                (size("webhook_deliveries") + size("webhook_attempts")) / 1024);
        out.printf(
                Locale.ROOT,
                "event log WAL / baseline WAL (each with its VACUUM), the webhook's rows apart = %.2f%n",
                (double) (eventLogWal - webhookWal + projectionVacuumWal) / (outboxWal + vacuumWal));
        out.printf(
                Locale.ROOT,
                "the same with the webhook's rows = %.2f (the baseline delivers no webhook)%n",
                (double) (eventLogWal + projectionVacuumWal) / (outboxWal + vacuumWal));
        if (imagesKnown) {
            out.printf(
                    Locale.ROOT,
                    "the same without full-page images = %.2f%n",
                    (double) (eventLogWal - webhookWal - eventLogBreakdown.fullPageImageBytes() + projectionVacuumWal)
                            / (outboxWal - outboxBreakdown.fullPageImageBytes() + vacuumWal));
        }
        out.printf(
                Locale.ROOT,
                "event log storage after compaction / baseline = %.2f (with the publications %.2f)%n",
                (double) compactedSize / outboxSize,
                (double) (compactedSize + publicationsAfter) / outboxSize);
        out.printf(Locale.ROOT, "compaction of %d messages took %.1f s%n", messages, compactionNanos / 1e9);
        out.printf(Locale.ROOT, "%n### Storage after compaction, per table (partitions summed)%n");
        out.println("| table | heap kB | indexes and TOAST kB | B per message |");
        out.println("|---|---:|---:|---:|");
        compactedSizes.forEach(out::println);
        out.printf(
                Locale.ROOT,
                "dead tuples on the publications (updated twice per batch by the timers) before their VACUUM: %d%n",
                eventLogStats.deadProjection);
        printBreakdown(out, "event log", eventLogBreakdown);
        printBreakdown(out, "mutable outbox row", outboxBreakdown);
    }

    /**
     * WAL by relation, as table rows, the bytes of full-page images in it (null without pg_walinspect), and the bytes
     * of the status webhooks' own relations (tables and indexes named {@code webhook_*}), counted apart (issue 27).
     */
    private record WalBreakdown(List<String> rows, Long fullPageImageBytes, long webhookBytes) {}

    private void printBreakdown(PrintStream out, String system, WalBreakdown breakdown) {
        List<String> rows = breakdown.rows();
        if (rows.isEmpty()) {
            out.printf(Locale.ROOT, "(no WAL breakdown for the %s: pg_walinspect is not available)%n", system);
            return;
        }
        out.printf(Locale.ROOT, "%n### Where the %s's WAL goes (pg_walinspect, per message)%n", system);
        out.println("| relation or record kind | WAL B/msg | of which full-page images | records/msg |");
        out.println("|---|---:|---:|---:|");
        rows.forEach(out::println);
    }

    /** WAL between two positions grouped by the relation of each record's first block (records without one by kind). */
    private WalBreakdown walByRelation(String from, String to) throws SQLException {
        List<String> rows = new ArrayList<>();
        long fpi = 0;
        long webhooks = 0;
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            try {
                st.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
            } catch (SQLException unavailable) {
                return new WalBreakdown(rows, null, 0);
            }
            try (PreparedStatement ps = c.prepareStatement("""
                    WITH r AS (
                      SELECT record_length, fpi_length, resource_manager || ' ' || split_part(record_type, ' ', 1) AS kind,
                             substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS filenode
                      FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn))
                    SELECT coalesce(c.relname, r.kind) AS what, sum(record_length) AS bytes, sum(fpi_length) AS fpi, count(*) AS n
                    FROM r LEFT JOIN pg_class c ON c.relfilenode = r.filenode AND r.filenode <> 0
                    GROUP BY 1 ORDER BY 2 DESC""")) {
                ps.setString(1, from);
                ps.setString(2, to);
                try (ResultSet rs = ps.executeQuery()) {
                    double n = messages;
                    while (rs.next()) {
                        fpi += rs.getLong(3);
                        if (rs.getString(1).startsWith("webhook_")) {
                            webhooks += rs.getLong(2);
                        }
                        rows.add(String.format(
                                Locale.ROOT,
                                "| %s | %.0f | %.0f | %.1f |",
                                rs.getString(1),
                                rs.getLong(2) / n,
                                rs.getLong(3) / n,
                                rs.getLong(4) / n));
                    }
                }
            }
        }
        return new WalBreakdown(rows, fpi, webhooks);
    }

    private String lsn() throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * The event log's side, by the pipeline's own code: the accept writer (the messages row is the acceptance), one
     * publication row per batch (as the poller writes it), the claims naming it, the provider acceptances with their
     * charges one request each (group-committed by the appender, as workers record them), the intermediate and the
     * final receipt (the final one carries the final status for search), and the timers' check of the publication once
     * its confirm deadline has passed (every message final: nothing left to watch).
     */
    private void eventLog() throws Exception {
        EventStore store = EventStore.of(ds);
        Instant at = day.atTime(12, 0).toInstant(ZoneOffset.UTC);
        AcceptWriter accept =
                new AcceptWriter(dsl, new MessageIds(() -> at), () -> at, new Lanes(16, 2), Duration.ofHours(24));
        EventAppender appender = new EventAppender(dsl, store, 4, new MetricRegistry(), "writecost-append");
        Publications publications = new Publications(dsl);
        IdBlocks publicationIds = new IdBlocks(dsl, "publications_id_seq", 64);
        MessageReader reader = new MessageReader(dsl, store);
        Instant afterConfirm = at.plusSeconds(31);
        Timers timers = new Timers(
                publications,
                reader,
                appender,
                store.actors(),
                new Limits(8, 100, Duration.ofSeconds(30), Duration.ofSeconds(60)),
                Duration.ofHours(48),
                () -> afterConfirm,
                new MetricRegistry());
        int pollerId = store.actors().id("poller");
        appender.start();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int done = 0; done < messages; done += BATCH) {
                int size = Math.min(BATCH, messages - done);
                List<MessageDraft> drafts = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    drafts.add(new MessageDraft(
                            "+4915100" + String.format("%06d", done + i),
                            "your code is " + (done + i),
                            null,
                            "sim",
                            null,
                            null,
                            null,
                            new byte[32],
                            null));
                }
                Submission s = new Submission("demo", drafts, true);
                accept.write(List.of(s));
                List<AcceptedItem> items =
                        ((SubmissionOutcome.Committed) s.outcome().get()).items();
                List<UUID> ids = items.stream().map(AcceptedItem::id).toList();
                long publication = publicationIds.next();
                Integer[] seqs = new Integer[size];
                Long[] epochs = new Long[size];
                java.util.Arrays.fill(seqs, 1);
                java.util.Arrays.fill(epochs, 1L);
                dsl.transaction(cfg -> Publications.record(
                        cfg.dsl(),
                        publication,
                        at,
                        at.plusSeconds(30),
                        pollerId,
                        ids.toArray(UUID[]::new),
                        seqs,
                        epochs));
                Map<UUID, Integer> nextSeq = new HashMap<>();
                ids.forEach(id -> nextSeq.put(id, 3));
                // Each event carries the status it moves its message to, as the pipeline's writers give it
                // (NewEvent.deciding): the append then joins the tenant's webhook registration in the same statement.
                step(
                        store,
                        ids,
                        nextSeq,
                        id -> new NewEvent(
                                id,
                                nextSeq.get(id),
                                Shards.of(id, 16),
                                "worker",
                                at,
                                new Claimed(1, "worker", at.plusSeconds(60)),
                                publication,
                                null,
                                "demo",
                                MessageStatus.SENDING));
                // Acceptances one request each, as workers record them; the appender group-commits them.
                List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
                for (UUID id : ids) {
                    futures.add(pool.submit(() -> {
                        NewEvent e = new NewEvent(
                                id,
                                nextSeq.get(id),
                                Shards.of(id, 16),
                                "worker",
                                at,
                                new ProviderAccepted(1, "sim", "p" + Math.floorMod(id.getLeastSignificantBits(), 1000)),
                                null,
                                null,
                                "demo",
                                MessageStatus.SENT);
                        appender.append(List.of(e), new Charge(id, 1, at));
                        return null;
                    }));
                }
                for (var f : futures) {
                    f.get();
                }
                ids.forEach(id -> nextSeq.merge(id, 1, Integer::sum));
                step(
                        store,
                        ids,
                        nextSeq,
                        id -> new NewEvent(
                                id,
                                nextSeq.get(id),
                                Shards.of(id, 16),
                                "callbacks",
                                at,
                                new Receipt(ReceiptKind.INTERMEDIATE, "sim", "p1", "ENROUTE", at, null, 1),
                                null,
                                null,
                                "demo",
                                MessageStatus.IN_TRANSIT));
                step(
                        store,
                        ids,
                        nextSeq,
                        id -> new NewEvent(
                                id,
                                nextSeq.get(id),
                                Shards.of(id, 16),
                                "callbacks",
                                at,
                                new Receipt(ReceiptKind.DELIVERED, "sim", "p1", "DELIVRD", at.plusSeconds(1), null, 2),
                                null,
                                FinalStatus.DELIVERED,
                                "demo",
                                MessageStatus.DELIVERED));
                timers.fire();
                deliverWebhooks(at);
            }
        } finally {
            appender.stop();
        }
    }

    /**
     * The webhook worker's writes for the owed deliveries: the dispatcher's lease of a batch, then each delivery's
     * attempt and outcome in a transaction of its own, as the worker records them (the HTTP post itself is not made).
     */
    private void deliverWebhooks(Instant at) throws Exception {
        // One connection (the data source here opens a new one per call): the worker's statements, one after another.
        try (Connection c = ds.getConnection()) {
            WebhookDeliveries deliveries = new WebhookDeliveries(DSL.using(c, SQLDialect.POSTGRES));
            List<WebhookDeliveries.Leased> leased;
            while (!(leased = deliveries.lease(at.plusSeconds(3600), Duration.ofSeconds(60), BATCH)).isEmpty()) {
                for (WebhookDeliveries.Leased l : leased) {
                    WebhookDeliveries.Delivery d = deliveries
                            .toDeliver(l.messageId(), l.seq())
                            .orElseThrow()
                            .delivery();
                    deliveries.record(d, at, 200, "HTTP 200", WebhookDeliveries.DELIVERED, null);
                }
            }
        }
    }

    /** One event per message of the batch, in one transaction; each message's next seq moves on. */
    private void step(
            EventStore store,
            List<UUID> ids,
            Map<UUID, Integer> nextSeq,
            java.util.function.Function<UUID, NewEvent> event) {
        List<NewEvent> events = ids.stream().map(event).toList();
        dsl.transaction(cfg -> store.append(cfg.dsl(), events));
        ids.forEach(id -> nextSeq.merge(id, 1, Integer::sum));
    }

    private void mutableOutbox() throws SQLException {
        try (Connection c = ds.getConnection()) {
            for (int done = 0; done < messages; done += BATCH) {
                int size = Math.min(BATCH, messages - done);
                c.setAutoCommit(false);
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO outbox_messages (message_id, tenant, recipient, body, "
                                + "gateway, status, updated_at) VALUES (?, 'demo', ?, ?, 'sim', 'PENDING', now())")) {
                    for (int i = 0; i < size; i++) {
                        ps.setObject(1, UUID.randomUUID());
                        ps.setString(2, "+4915100" + String.format("%06d", done + i));
                        ps.setString(3, "your code is " + (done + i));
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                c.commit();
                List<Long> claimed = new ArrayList<>();
                try (Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("UPDATE outbox_messages SET status = "
                                + "'PUBLISHED', claimed_at = now(), attempts = attempts + 1, updated_at = now() WHERE id IN (SELECT id FROM "
                                + "outbox_messages WHERE status = 'PENDING' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT "
                                + size + ") RETURNING id")) {
                    while (rs.next()) {
                        claimed.add(rs.getLong(1));
                    }
                }
                c.commit();
                Long[] ids = claimed.toArray(Long[]::new);
                update(c, "status = 'CLAIMED'", ids);
                update(c, "status = 'SENT', provider_id = 'p' || (id % 1000)", ids);
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO outbox_ledger (idempotency_key, message_id, units) "
                                + "SELECT 'charge:' || message_id, message_id, 1 FROM outbox_messages WHERE id = ANY(?)")) {
                    ps.setArray(1, c.createArrayOf("int8", ids));
                    ps.executeUpdate();
                }
                c.commit();
                update(c, "status = 'IN_TRANSIT'", ids);
                update(c, "status = 'DELIVERED'", ids);
                c.setAutoCommit(true);
            }
        }
    }

    private static void update(Connection c, String set, Long[] ids) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE outbox_messages SET " + set + ", updated_at = now() WHERE id = ANY(?)")) {
            ps.setArray(1, c.createArrayOf("int8", ids));
            ps.executeUpdate();
        }
        c.commit();
    }

    private record Stats(
            long inserted, long updated, long nonHot, long indexEntries, long deadHot, long deadProjection) {
        Stats minus(Stats o) {
            return new Stats(
                    inserted - o.inserted,
                    updated - o.updated,
                    nonHot - o.nonHot,
                    indexEntries - o.indexEntries,
                    deadHot,
                    deadProjection);
        }
    }

    private Stats stats() throws SQLException {
        exec("SELECT pg_stat_force_next_flush()");
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("""
                WITH t AS (
                  SELECT s.relid, s.relname, s.n_tup_ins, s.n_tup_upd, s.n_tup_hot_upd, s.n_dead_tup,
                         coalesce(p.relname, s.relname) AS logical,
                         (SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid) AS indexes
                  FROM pg_stat_user_tables s
                  LEFT JOIN pg_inherits h ON h.inhrelid = s.relid LEFT JOIN pg_class p ON p.oid = h.inhparent
                )
                SELECT
                  sum(n_tup_ins) FILTER (WHERE logical LIKE 'outbox_%') AS o_ins,
                  sum(n_tup_upd) FILTER (WHERE logical LIKE 'outbox_%') AS o_upd,
                  sum(n_tup_upd - n_tup_hot_upd) FILTER (WHERE logical LIKE 'outbox_%') AS o_nonhot,
                  sum((n_tup_ins + n_tup_upd - n_tup_hot_upd) * indexes) FILTER (WHERE logical LIKE 'outbox_%') AS o_idx,
                  sum(n_dead_tup) FILTER (WHERE logical = 'outbox_messages') AS o_dead,
                  sum(n_tup_ins) FILTER (WHERE logical IN ('messages','message_events','ledger','actors','publications')) AS e_ins,
                  sum(n_tup_upd) FILTER (WHERE logical IN ('messages','message_events','ledger','actors','publications')) AS e_upd,
                  sum(n_tup_upd - n_tup_hot_upd) FILTER (WHERE logical IN ('messages','message_events','ledger','actors','publications')) AS e_nonhot,
                  sum((n_tup_ins + n_tup_upd - n_tup_hot_upd) * indexes) FILTER (WHERE logical IN ('messages','message_events','ledger','actors','publications')) AS e_idx,
                  sum(n_dead_tup) FILTER (WHERE logical IN ('messages','message_events','ledger','actors')) AS e_dead,
                  sum(n_dead_tup) FILTER (WHERE logical = 'publications') AS p_dead
                FROM t""")) {
            rs.next();
            return new Stats(
                    rs.getLong("e_ins") + rs.getLong("o_ins"),
                    rs.getLong("e_upd") + rs.getLong("o_upd"),
                    rs.getLong("e_nonhot") + rs.getLong("o_nonhot"),
                    rs.getLong("e_idx") + rs.getLong("o_idx"),
                    rs.getLong("e_dead") + rs.getLong("o_dead"),
                    rs.getLong("p_dead"));
        }
    }

    private long wal() throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long size(String table) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT coalesce(sum(pg_total_relation_size(x.oid)), 0) FROM (SELECT '"
                        + table + "'::regclass::oid AS oid UNION ALL "
                        + "SELECT inhrelid FROM pg_inherits WHERE inhparent = '" + table + "'::regclass) x")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The heap alone (main fork, free space and visibility maps), without indexes or TOAST. */
    private long heapSize(String table) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT coalesce(sum(pg_table_size(x.oid) - coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)), 0) "
                                + "FROM (SELECT '" + table
                                + "'::regclass::oid AS oid UNION ALL SELECT inhrelid FROM pg_inherits WHERE inhparent = '"
                                + table + "'::regclass) x JOIN pg_class c ON c.oid = x.oid")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
