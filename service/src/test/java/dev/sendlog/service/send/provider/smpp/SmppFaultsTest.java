package dev.sendlog.service.send.provider.smpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.events.EventType;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscSimulator;
import dev.sendlog.simulator.smpp.SmscSubmit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SMPP gateway under faults (issue 28): while messages flow, whole and in parts, the SMSC drops every bind, refuses
 * binds for a while, loses some submit_sm_resp, and is stopped and started again (losing the receipts it still owed).
 * Afterwards every accepted message is DELIVERED or UNKNOWN by the rules (none lost, none stuck), each message the
 * SMSC took is charged exactly once, and no part reached the SMSC twice: SMPP has no idempotency key, so the gateway
 * never submits again what the SMSC may have.
 */
class SmppFaultsTest {
    private static final int MESSAGES = 150;
    private static final SmscConfig BASE = SmscConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptDelayMs(30)
            .loseResponseRate(0.03)
            .build();

    private static SmscSimulator smsc = start(BASE, 0);
    private static final int PORT = smsc.port();

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.retryBase", "200ms", "pipeline.retryCap", "1s", "pipeline.maxAttempts", "20")
            .configure(SmppFaultsTest::gateway);

    private static SmscSimulator start(SmscConfig config, int port) {
        try {
            return SmscSimulator.start(config, port);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void gateway(ObjectNode config) {
        ObjectNode g = ((ObjectNode) config.get("gateways"))
                .putObject("smsc")
                .put("type", "smpp")
                .put("vocabulary", "smpp")
                .put("requestTimeoutMs", 1_000)
                .put("downAfterFailures", 0);
        g.putObject("smpp")
                .put("host", "127.0.0.1")
                .put("port", PORT)
                .put("systemId", "sendlog")
                .put("password", "secret")
                .put("sessions", 2)
                .put("window", 8)
                .put("enquireLinkInterval", "2s")
                .put("reconnectMin", "50ms")
                .put("reconnectMax", "300ms");
    }

    @Test
    void bindsDroppedAndTheSmscRestartedLoseNothingChargeOnceAndSendNothingTwice() throws Exception {
        List<SmscSubmit> before = new CopyOnWriteArrayList<>(); // what earlier SMSC incarnations took
        Map<String, String> recipients = new ConcurrentHashMap<>(); // message id -> recipient
        Map<String, Integer> parts = new ConcurrentHashMap<>();
        Thread load = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < MESSAGES; i++) {
                String to = Messages.recipient();
                String body = i % 5 == 0 ? "part-" + i + "-" + "y".repeat(180) : "whole " + i;
                ApiResponse r = SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"" + to + "\",\"body\":\"" + body + "\",\"gateway\":\"smsc\"}");
                assertThat(r.status()).as(r.raw()).isEqualTo(202);
                recipients.put(r.json().get("id").asText(), to);
                parts.put(to, i % 5 == 0 ? 2 : 1);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
            }
        });
        // The faults, each once the load has reached a point, so that every one falls on messages in flight.
        await().atMost(Duration.ofSeconds(30)).until(() -> recipients.size() >= 30);
        smsc.dropBinds();
        await().atMost(Duration.ofSeconds(30)).until(() -> recipients.size() >= 60);
        smsc.refuseBinds(true);
        smsc.dropBinds();
        await().atMost(Duration.ofSeconds(30)).until(() -> recipients.size() >= 75);
        smsc.refuseBinds(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> recipients.size() >= 100);
        before.addAll(smsc.submits());
        smsc.close(); // the SMSC goes away, with the receipts it still owed
        await().atMost(Duration.ofSeconds(30)).until(() -> recipients.size() >= 115);
        smsc = start(BASE, PORT);
        load.join();
        smsc.reconfigure(BASE.toBuilder().loseResponseRate(0).build());

        // Every message ends DELIVERED or UNKNOWN: retries come due and the reconciliation window ends on the test
        // clock.
        Messages.awaitAdvancing(SERVICE, Duration.ofMinutes(5), Duration.ofMinutes(3), () -> {
            for (String id : recipients.keySet()) {
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .as("message %s", id)
                        .isIn("DELIVERED", "UNKNOWN");
            }
        });

        List<SmscSubmit> all = new ArrayList<>(before);
        all.addAll(smsc.submits());
        // No part reached the SMSC twice.
        Map<String, List<SmscSubmit>> byRecipient =
                all.stream().collect(Collectors.groupingBy(s -> "+" + s.destAddr()));
        for (Map.Entry<String, List<SmscSubmit>> e : byRecipient.entrySet()) {
            Set<Integer> numbers =
                    e.getValue().stream().map(SmscSubmit::partNumber).collect(Collectors.toSet());
            assertThat(e.getValue()).as("submits to %s", e.getKey()).hasSize(numbers.size());
            assertThat(numbers.size()).isLessThanOrEqualTo(parts.get(e.getKey()));
        }
        // Each message the SMSC took whole is DELIVERED or UNKNOWN; every DELIVERED one had all its parts taken.
        Map<String, Long> statuses = new HashMap<>();
        for (Map.Entry<String, String> m : recipients.entrySet()) {
            String status = SERVICE.api()
                    .get("/v1/messages/" + m.getKey(), "support-1")
                    .json()
                    .get("status")
                    .asText();
            statuses.merge(status, 1L, Long::sum);
            if (status.equals("DELIVERED")) {
                assertThat(byRecipient.get(m.getValue())).hasSize(parts.get(m.getValue()));
            }
        }
        // Charged once: one ledger row for each message with a recorded acceptance, and none for the others.
        long acceptedMessages = Sql.count(
                SERVICE.dataSource(),
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = "
                        + EventType.PROVIDER_ACCEPTED.code());
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger"))
                .isEqualTo(acceptedMessages);
        assertThat(statuses.getOrDefault("DELIVERED", 0L)).isGreaterThan(MESSAGES / 2);
        System.out.printf(
                "SMPP faults: %d messages, %s, %d submit_sm taken by the SMSC, %d acceptances recorded%n",
                MESSAGES, statuses, all.size(), acceptedMessages);
    }
}
