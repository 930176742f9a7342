package dev.sendlog.service.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Shards;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;

/** Submitting messages through the real API and waiting for what the log says about them. */
public final class Messages {
    private static final AtomicLong NUMBERS = new AtomicLong(4915100000000L);

    private Messages() {}

    /** A recipient that passes the E.164 check, different every call. */
    public static String recipient() {
        return "+" + NUMBERS.incrementAndGet();
    }

    /** Submits {@code n} messages through /v1/messages/batch (1000 per request); returns their ids in order. */
    public static List<String> submit(ServiceHarness service, int n) {
        List<String> ids = new ArrayList<>(n);
        while (ids.size() < n) {
            int size = Math.min(1000, n - ids.size());
            StringBuilder body = new StringBuilder("{\"messages\":[");
            for (int i = 0; i < size; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"to\":\"")
                        .append(recipient())
                        .append("\",\"body\":\"message ")
                        .append(ids.size() + i)
                        .append("\"}");
            }
            ApiResponse r = service.api()
                    .post("/v1/messages/batch", "client-a", body.append("]}").toString());
            assertThat(r.status()).as(r.raw()).isEqualTo(202);
            for (JsonNode item : r.json().get("results")) {
                ids.add(item.get("id").asText());
            }
        }
        return ids;
    }

    public static String submitOne(ServiceHarness service, String to) {
        ApiResponse r = service.api().post("/v1/messages", "client-a", "{\"to\":\"" + to + "\",\"body\":\"hello\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    /**
     * A message row as the accept path leaves it (the lean log: the row is its ACCEPTED event, seq 1), written directly
     * for a test below the API: tenant {@code tenant}, one of {@code shards} shards, recipient +4915100000001, body "hi",
     * gateway "sim".
     */
    public static void insertRow(DSLContext dsl, UUID id, String tenant, int shards) {
        dsl.execute(
                "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) VALUES (?, ?, ?, "
                        + "'+4915100000001', 'hi', 'sim', now())",
                id,
                tenant,
                Shards.of(id, shards));
    }

    /** Waits until {@code sql} (a count) returns {@code expected}. */
    public static void awaitCount(ServiceHarness service, String sql, long expected, Duration atMost) {
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() ->
                        assertThat(Sql.count(service.dataSource(), sql)).as(sql).isEqualTo(expected));
    }

    /** Messages the provider accepted, counted from the log (the truth). */
    public static long providerAccepted(ServiceHarness service) {
        return Sql.count(
                service.dataSource(),
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = "
                        + EventType.PROVIDER_ACCEPTED.code());
    }

    /** Waits until every message's status (as the API derives it) is {@code status}. */
    public static void awaitStatus(ServiceHarness service, String id, String status, Duration atMost) {
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(service.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo(status));
    }

    /** Waits until the message's status is {@code status}, moving the test clock by {@code step} at every poll. */
    public static void awaitStatusAdvancing(
            ServiceHarness service, String id, String status, Duration step, Duration atMost) {
        awaitAdvancing(
                service,
                step,
                atMost,
                () -> assertThat(service.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .as("message %s", id)
                        .isEqualTo(status));
    }

    /**
     * Waits for a condition while moving the test clock forward by {@code step} at every poll, so the
     * pipeline's timers (confirm, claim, retry deadlines) come due without waiting for real time.
     */
    public static void awaitAdvancing(ServiceHarness service, Duration step, Duration atMost, Runnable assertion) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            service.clock().advance(step);
            assertion.run();
        });
    }

    /** How many events of {@code type} one message's history shows (through the API, as support reads it). */
    public static long events(ServiceHarness service, String id, String type) {
        return history(service, id).stream()
                .filter(e -> e.get("type").asText().equals(type))
                .count();
    }

    /** One message's history as the API shows it to support: its events, in order. */
    public static List<JsonNode> history(ServiceHarness service, String id) {
        ApiResponse r = service.api().get("/v1/messages/" + id + "/events", "support-1");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        r.json().get("events").forEach(events::add);
        return events;
    }

    /** How many publications name the message: how many times its work was put on the send stream. */
    public static long publications(ServiceHarness service, String id) {
        return Sql.count(
                service.dataSource(), "SELECT count(*) FROM publications WHERE '" + id + "' = ANY(message_ids)");
    }

    /** How many of the messages have an event row of {@code type}, counted in the log itself. */
    public static long withEventRow(ServiceHarness service, List<String> ids, EventType type) {
        return Sql.count(
                service.dataSource(),
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = " + type.code()
                        + " AND message_id IN ('" + String.join("','", ids) + "')");
    }

    /** How many of the messages are charged in the ledger. */
    public static long charged(ServiceHarness service, List<String> ids) {
        return Sql.count(
                service.dataSource(),
                "SELECT count(*) FROM ledger WHERE effect_key IN ('" + String.join("','", ids) + "')");
    }

    public static long ledgerRows(ServiceHarness service, String id) {
        return Sql.count(service.dataSource(), "SELECT count(*) FROM ledger WHERE effect_key = '" + id + "'");
    }

    /**
     * What the simulator recorded of each accepted submit, by our reference (the message id): what reached the provider,
     * read from the provider's side rather than from our log.
     */
    public static Map<String, JsonNode> providerRecords(ServiceHarness service) {
        Map<String, JsonNode> byReference = new java.util.HashMap<>();
        try {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                                            service.simulator().baseUrl() + "/v1/records"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            for (String line : r.body().split("\n")) {
                if (!line.isBlank()) {
                    JsonNode record = json.readTree(line);
                    byReference.put(record.path("reference").asText(), record);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return byReference;
    }
}
