package dev.sendlog.tools.loadtest;

import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.MessageIds;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.SearchQuery;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Search at scale: fills a database with {@code messages} messages (ten tenants, recipients shared by five messages
 * each, outcomes spread as a busy day spreads them, each with the rows of its life) and times a page of 50 of the
 * searches the API serves, through the same reader the API uses (index lookups, then the page's histories folded).
 */
public final class SearchBench {
    private final PGSimpleDataSource ds = new PGSimpleDataSource();
    private final int messages;

    public SearchBench(String jdbcUrl, int messages) {
        ds.setUrl(jdbcUrl);
        ds.setUser("postgres");
        this.messages = messages;
    }

    public void run(PrintStream out) throws Exception {
        Migrations.migrate(ds);
        LocalDate day = LocalDate.now(ZoneOffset.UTC);
        new PartitionManager(ds, Duration.ofSeconds(5)).ensure(day, 1);
        long startMs = day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() + 3_600_000;
        long t0 = System.nanoTime();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            String id =
                    "(lpad(to_hex(" + startMs + " + i * 20), 12, '0') || '7' || lpad(to_hex(i % 4096), 3, '0') || '8' "
                            + "|| lpad(to_hex(i), 15, '0'))::uuid";
            st.execute("INSERT INTO messages (id, tenant, shard, reference, recipient, body, gateway, accepted_at) "
                    + "SELECT " + id
                    + ", 'tenant-' || (i % 10), (i % 16)::int2, 'ref-' || i, '+49151' || lpad((i % 200000)::text, 7, '0'), "
                    + "'message ' || i, 'sim', to_timestamp((" + startMs
                    + " + i * 20) / 1000.0) FROM generate_series(1, " + messages + ") i");
            // Each message's life as the lean log holds it: a publication per 500 messages, the claim naming it, the
            // provider's acceptance, and the end: a final receipt (DELIVERED 93%, UNDELIVERED 2%), OUTCOME_UNKNOWN
            // (3%), DEAD after a failed claim (0.1%), or still SENT (1%, in flight). The event that ends a message
            // carries its final status for search, as the pipeline writes it.
            st.execute(
                    "INSERT INTO actors (name) VALUES ('poller-bench'), ('worker-bench'), ('callbacks-bench'), ('timer') "
                            + "ON CONFLICT DO NOTHING");
            st.execute(
                    "CREATE TEMP TABLE fill AS SELECT id, tenant, accepted_at, (row_number() OVER (ORDER BY id) - 1) / 500 AS pub, "
                            + "CASE WHEN r < 0.001 THEN 'DEAD' WHEN r < 0.021 THEN 'UNDELIVERED' WHEN r < 0.051 THEN 'UNKNOWN' "
                            + "WHEN r < 0.061 THEN 'SENT' ELSE 'DELIVERED' END AS outcome FROM (SELECT id, tenant, accepted_at, random() AS r "
                            + "FROM messages) m");
            st.execute(
                    "INSERT INTO publications (id, published_at, confirm_by, check_at, actor, message_ids, seqs, epochs) "
                            + "SELECT pub, min(accepted_at), min(accepted_at) + interval '30 seconds', NULL, "
                            + "(SELECT id FROM actors WHERE name = 'poller-bench'), array_agg(id ORDER BY id), array_agg(1), "
                            + "array_agg(1::bigint) FROM fill GROUP BY pub");
            st.execute("SELECT setval('publications_id_seq', (SELECT max(id) + 1 FROM publications))");
            String worker = "(SELECT id FROM actors WHERE name = 'worker-bench')";
            String callbacks = "(SELECT id FROM actors WHERE name = 'callbacks-bench')";
            st.execute("INSERT INTO message_events (message_id, seq, at, type, actor, attempt, publication, time2) "
                    + "SELECT id, 3, accepted_at, 3, " + worker
                    + ", 1, pub, accepted_at + interval '60 seconds' FROM fill");
            st.execute("INSERT INTO message_events (message_id, seq, at, type, actor, attempt, gateway, provider_id) "
                    + "SELECT id, 4, accepted_at, 4, " + worker
                    + ", 1, 'sim', 'p' || substr(md5(id::text), 1, 8) FROM fill "
                    + "WHERE outcome <> 'DEAD'");
            st.execute("INSERT INTO message_events (message_id, seq, at, type, actor, attempt, detail, status, tenant) "
                    + "SELECT id, 4, accepted_at, 8, " + worker + ", 8, 'attempt limit 8 reached', 5, tenant FROM fill "
                    + "WHERE outcome = 'DEAD'");
            st.execute(
                    "INSERT INTO message_events (message_id, seq, at, type, actor, kind, gateway, provider_id, detail, time2, "
                            + "ref, status, tenant) SELECT id, 5, accepted_at, 9, " + callbacks
                            + ", CASE outcome WHEN 'DELIVERED' THEN 2 "
                            + "ELSE 3 END, 'sim', 'p' || substr(md5(id::text), 1, 8), CASE outcome WHEN 'DELIVERED' THEN 'DELIVRD' "
                            + "ELSE 'UNDELIV' END, accepted_at, 0, CASE outcome WHEN 'DELIVERED' THEN 1 ELSE 2 END, tenant FROM fill "
                            + "WHERE outcome IN ('DELIVERED', 'UNDELIVERED')");
            st.execute("INSERT INTO message_events (message_id, seq, at, type, actor, detail, status, tenant) "
                    + "SELECT id, 5, accepted_at, 10, (SELECT id FROM actors WHERE name = 'timer'), 'no final receipt within PT48H', "
                    + "3, tenant FROM fill WHERE outcome = 'UNKNOWN'");
            st.execute("ANALYZE");
        }
        out.printf(
                Locale.ROOT,
                "## Search over %d messages (filled in %.0f s, %s)%n",
                messages,
                (System.nanoTime() - t0) / 1e9,
                Instant.now());
        // One open connection, as the service's pool gives: a DataSource without a pool would open a connection per
        // query, and its set-up (tens of milliseconds here) would be timed instead of the search.
        try (Connection connection = ds.getConnection()) {
            time(out, DSL.using(connection, SQLDialect.POSTGRES), startMs);
        }
    }

    private void time(PrintStream out, DSLContext dsl, long startMs) {
        MessageReader reader = new MessageReader(dsl, EventStore.of(ds));
        Instant from = Instant.ofEpochMilli(startMs + 20L * messages / 2);
        UUID middle = MessageIds.lowerBound(from);
        Map<String, SearchQuery> searches = new LinkedHashMap<>();
        searches.put("a client's newest messages", new SearchQuery("tenant-3", null, null, null, null, null, 50, null));
        searches.put("by recipient", new SearchQuery("tenant-3", "+491510012343", null, null, null, null, 50, null));
        searches.put("by reference", new SearchQuery("tenant-7", null, "ref-777777", null, null, null, 50, null));
        searches.put(
                "by status DELIVERED",
                new SearchQuery("tenant-3", null, null, MessageStatus.DELIVERED, null, null, 50, null));
        searches.put(
                "by status and recipient (joins the message)",
                new SearchQuery("tenant-3", "+491510012343", null, MessageStatus.DELIVERED, null, null, 50, null));
        searches.put(
                "support: status and reference, every tenant",
                new SearchQuery(null, null, "ref-777777", MessageStatus.DELIVERED, null, null, 50, null));
        searches.put(
                "by status DEAD (rare)",
                new SearchQuery("tenant-3", null, null, MessageStatus.DEAD, null, null, 50, null));
        searches.put(
                "support: recipient, every tenant",
                new SearchQuery(null, "+491510012343", null, null, null, null, 50, null));
        searches.put(
                "time range (one minute)",
                new SearchQuery("tenant-5", null, null, null, from, from.plusSeconds(60), 50, null));
        searches.put(
                "a page deep in (keyset cursor)",
                new SearchQuery("tenant-1", null, null, null, null, null, 50, middle));
        searches.put(
                "support: everything by status UNKNOWN",
                new SearchQuery(null, null, null, MessageStatus.UNKNOWN, null, null, 50, null));
        searches.put(
                "by status SENT (in flight: the newest messages, folded)",
                new SearchQuery("tenant-3", null, null, MessageStatus.SENT, null, null, 50, null));
        searches.put(
                "by status SENT in a time range (one hour)",
                new SearchQuery("tenant-3", null, null, MessageStatus.SENT, from, from.plusSeconds(3600), 50, null));
        out.println("| search (page of 50) | p50 ms | p99 ms | items |");
        out.println("|---|---:|---:|---:|");
        for (Map.Entry<String, SearchQuery> e : searches.entrySet()) {
            for (int i = 0; i < 5; i++) {
                reader.search(e.getValue());
            }
            long[] times = new long[40];
            int items = 0;
            for (int i = 0; i < times.length; i++) {
                long s = System.nanoTime();
                items = reader.search(e.getValue()).items().size();
                times[i] = System.nanoTime() - s;
            }
            Arrays.sort(times);
            out.printf(
                    Locale.ROOT,
                    "| %s | %.1f | %.1f | %d |%n",
                    e.getKey(),
                    times[times.length / 2] / 1e6,
                    times[times.length - 1] / 1e6,
                    Math.min(items, 50));
        }
    }
}
