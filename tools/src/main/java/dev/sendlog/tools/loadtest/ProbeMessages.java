package dev.sendlog.tools.loadtest;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The probe messages of the latency benchmarks (priority, fair shares): single submits at a steady rate, and their time
 * from acceptance to the provider's acceptance read from the log (the PROVIDER_ACCEPTED event), not from a client clock.
 */
final class ProbeMessages {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newHttpClient();
    private final String api;
    private long recipients;

    /** Latencies in ms over a set of messages: acceptance to the PROVIDER_ACCEPTED event. */
    record Latency(long messages, double p50, double p99, double max) {}

    /** One stream of probes: every tick submits one message with this key and priority, its id kept in {@code ids}. */
    record Probe(String key, String priority, List<UUID> ids) {
        static Probe of(String key, String priority) {
            return new Probe(key, priority, new ArrayList<>());
        }
    }

    ProbeMessages(String api, long firstRecipient) {
        this.api = api;
        this.recipients = firstRecipient;
    }

    /** Submits one message of each probe every {@code 1/rate} s for {@code duration}. */
    void paced(int rate, Duration duration, List<Probe> probes) throws IOException, InterruptedException {
        long interval = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long next = start;
        while (System.nanoTime() - start < duration.toNanos()) {
            for (Probe p : probes) {
                p.ids().add(submit(p.key(), p.priority()));
            }
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait)); // pacing: the next message is due then
            }
        }
    }

    private UUID submit(String key, String priority) throws IOException, InterruptedException {
        String body =
                "{\"to\":\"+" + (recipients++) + "\",\"body\":\"latency probe\",\"priority\":\"" + priority + "\"}";
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(api + "/v1/messages"))
                        .header("Authorization", "Bearer " + key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
        }
        return UUID.fromString(JSON.readTree(r.body()).get("id").asText());
    }

    /**
     * Waits (up to {@code atMost}) until every message has its PROVIDER_ACCEPTED, then reads the latencies of those that
     * have one ({@code messages} tells how many).
     */
    /**
     * Where the probes' time went, p50/p99 ms per stage: acceptance to publication (the poller), publication to the
     * claim (the stream, the worker's read and the gateway's tokens), the claim to PROVIDER_ACCEPTED (the call and the
     * result's commit). From the log, for messages that reached the provider.
     */
    static String stages(BenchServers servers, List<UUID> ids) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY pub), percentile_cont(0.99) WITHIN GROUP (ORDER BY pub),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY claim), percentile_cont(0.99) WITHIN GROUP (ORDER BY claim),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY call), percentile_cont(0.99) WITHIN GROUP (ORDER BY call)
                FROM (SELECT extract(epoch FROM p.published_at - m.accepted_at) * 1000 AS pub,
                             extract(epoch FROM cl.at - p.published_at) * 1000 AS claim,
                             extract(epoch FROM pa.at - cl.at) * 1000 AS call
                      FROM messages m
                      JOIN message_events pa ON pa.message_id = m.id AND pa.type = 4
                      JOIN LATERAL (SELECT e.at FROM message_events e WHERE e.message_id = m.id AND e.type = 3
                                    ORDER BY e.seq DESC LIMIT 1) cl ON true
                      JOIN LATERAL (SELECT min(x.published_at) AS published_at FROM publications x
                                    WHERE m.id = ANY(x.message_ids)
                                      AND x.published_at >= m.accepted_at - interval '1 minute') p ON true
                      WHERE m.id = ANY(?)) t""")) {
            st.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return String.format(
                        java.util.Locale.ROOT,
                        "accept->published %.1f/%.1f, published->claimed %.1f/%.1f, claimed->provider accepted %.1f/%.1f",
                        rs.getDouble(1),
                        rs.getDouble(2),
                        rs.getDouble(3),
                        rs.getDouble(4),
                        rs.getDouble(5),
                        rs.getDouble(6));
            }
        }
    }

    static Latency latency(BenchServers servers, List<UUID> ids, Duration atMost)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
                       max(ms)
                FROM (SELECT extract(epoch FROM e.at - m.accepted_at) * 1000 AS ms
                      FROM messages m JOIN message_events e ON e.message_id = m.id AND e.type = 4
                      WHERE m.id = ANY(?)) t""")) {
            st.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            while (true) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= ids.size() || System.nanoTime() > deadline) {
                        return new Latency(rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4));
                    }
                }
                Thread.sleep(500); // polling the log for the last of them
            }
        }
    }
}
