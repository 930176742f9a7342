package dev.sendlog.service.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Health that tells the truth: each check is proven by causing its fault. It must fail within 10 seconds, while
 * the API keeps accepting, and recover by itself when the fault ends. The time each alarm took is printed.
 */
class HealthChecksTest {
    private static final long REDIS_MAX_BYTES = 8L * 1024 * 1024;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "alarms.maxUnownedShard",
                    "2s",
                    "alarms.maxUnpublishedAge",
                    "3s",
                    "alarms.maxQueueAge",
                    "3s",
                    "alarms.maxTimerLag",
                    "3s",
                    "alarms.maxTransactionAge",
                    "2s",
                    "alarms.maxDeadPerMinute",
                    "1",
                    "pipeline.leaseTtl",
                    "3s")
            .privateRedis(REDIS_MAX_BYTES);

    private static Duration awaitState(String check, boolean healthy) {
        Instant start = Instant.now();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(SERVICE.healthy(check))
                        .as(SERVICE.healthMessage(check))
                        .isEqualTo(healthy));
        Duration took = Duration.between(start, Instant.now());
        System.out.printf(
                "health check %s became %s in %d ms: %s%n",
                check, healthy ? "healthy" : "unhealthy", took.toMillis(), SERVICE.healthMessage(check));
        return took;
    }

    @Test
    void aFullRedisFailsItsCheckWhileTheApiStillAcceptsAndRecovers() {
        awaitState("redis-send", true);
        try (RedisClient client = SERVICE.redisClient();
                StatefulRedisConnection<String, String> redis = client.connect()) {
            String filler = "x".repeat(64 * 1024);
            int written = 0;
            try {
                for (; written < 10_000; written++) {
                    redis.sync().set("filler:" + written, filler);
                }
            } catch (RuntimeException full) {
                assertThat(full.getMessage()).contains("OOM");
            }
            assertThat(written).isLessThan(10_000);
            awaitState("redis-send", false);
            assertThat(SERVICE.healthMessage("redis-send"))
                    .containsAnyOf("cannot write to Redis", "of maxmemory (fails at");
            ApiResponse accepted = SERVICE.api()
                    .post("/v1/messages", "client-a", "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"b\"}");
            assertThat(accepted.status())
                    .as("the API accepts into PostgreSQL while Redis is full")
                    .isEqualTo(202);
            assertThat(SERVICE.admin()
                            .get("/metrics", null)
                            .json()
                            .path("gauges")
                            .path("redis.send.memory.percent")
                            .path("value")
                            .asLong())
                    .isGreaterThanOrEqualTo(90);
            for (int i = 0; i < written; i++) {
                redis.sync().del("filler:" + i);
            }
        }
        awaitState("redis-send", true);
    }

    /** The timers run with the pollers: stopped, a publication's check that comes due waits, and the timers check says so. */
    @Test
    void aStoppedPollerFailsThePollerAndTimerChecksAndTheyRecoverWhenItResumes() {
        // The timers take what is due by the application's clock, the check below is aged on the database's: a test
        // clock left behind the wall clock (a slow start) would never reach the check set back 10 s and never recover.
        if (SERVICE.now().isBefore(Instant.now())) {
            SERVICE.clock().set(Instant.now());
        }
        awaitState("pollers", true);
        awaitState("timers", true);
        String sent = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, sent, "SENT", Duration.ofSeconds(30));
        assertThat(SERVICE.admin()
                        .post("/tasks/pause?component=poller", "admin-1", "")
                        .status())
                .isEqualTo(200);
        try {
            Messages.submitOne(SERVICE, Messages.recipient());
            Sql.exec(
                    SERVICE.dataSource(),
                    "UPDATE publications SET check_at = now() - interval '10 seconds' " + "WHERE '" + sent
                            + "' = ANY(message_ids)");
            awaitState("pollers", false);
            awaitState("timers", false);
        } finally {
            SERVICE.admin().post("/tasks/resume?component=poller", "admin-1", "");
        }
        awaitState("pollers", true);
        awaitState("timers", true);
    }

    @Test
    void stoppedSendWorkersFailTheWorkersCheckAndItRecoversWhenTheyResume() {
        awaitState("workers-send", true);
        SERVICE.admin().post("/tasks/pause?component=send-worker", "admin-1", "");
        String id;
        try {
            id = Messages.submitOne(SERVICE, Messages.recipient());
            awaitState("workers-send", false);
        } finally {
            SERVICE.admin().post("/tasks/resume?component=send-worker", "admin-1", "");
        }
        awaitState("workers-send", true);
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
    }

    @Test
    void aLongOpenWritingTransactionFailsItsCheck() throws Exception {
        awaitState("transactions", true);
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SELECT pg_current_xact_id()");
            awaitState("transactions", false);
            assertThat(SERVICE.healthMessage("transactions")).contains("holds every tail reader back");
            c.rollback();
        }
        awaitState("transactions", true);
    }

    @Test
    void messagesGoingDeadFasterThanTheLimitRaiseTheAlarm() {
        SERVICE.simulator()
                .updateConfig(SERVICE.simulator().config().toBuilder()
                        .transientErrorRate(1.0)
                        .build());
        try {
            String a = Messages.submitOne(SERVICE, Messages.recipient());
            String b = Messages.submitOne(SERVICE, Messages.recipient());
            Messages.awaitAdvancing(SERVICE, Duration.ofSeconds(2), Duration.ofSeconds(60), () -> {
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + a, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo("DEAD");
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + b, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo("DEAD");
            });
        } finally {
            SERVICE.simulator()
                    .updateConfig(SERVICE.simulator().config().toBuilder()
                            .transientErrorRate(0)
                            .build());
        }
        // An alarm, not the node's health (issue 24, item 4): raised on /alarms, said by the check, which stays
        // healthy.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(alarm("dead").get("raised").asBoolean()).isTrue());
        assertThat(alarm("dead").get("lastMinute").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(alarm("dead").get("limit").asInt()).isEqualTo(1);
        assertThat(SERVICE.healthy("failures")).isTrue();
        assertThat(SERVICE.healthMessage("failures")).contains("DEAD rising");
    }

    private static com.fasterxml.jackson.databind.JsonNode alarms() {
        ApiResponse r = SERVICE.admin().get("/alarms", null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.json();
    }

    private static com.fasterxml.jackson.databind.JsonNode alarm(String name) {
        return alarms().get("alarms").get(name);
    }

    private static java.util.Set<String> unhealthyChecks() {
        java.util.Set<String> unhealthy = new java.util.TreeSet<>();
        SERVICE.admin().get("/healthcheck", null).json().properties().forEach(c -> {
            if (!c.getValue().path("healthy").asBoolean()) {
                unhealthy.add(c.getKey());
            }
        });
        return unhealthy;
    }

    private static long gauge(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("gauges")
                .path(name)
                .path("value")
                .asLong();
    }

    /**
     * Issue 24, item 4: eleven signed callbacks with a status word the gateway does not know turned /healthcheck red,
     * and a load balancer would have taken every node out because one provider used a new word. Now the parked alarm
     * is raised on /alarms and in the metrics, /healthcheck stays 200, and the alarm clears once its minute has passed.
     */
    @Test
    void aBurstOfParkedCallbacksRaisesTheAlarmButLeavesTheNodeHealthy() {
        SERVICE.clock().advance(Duration.ofMinutes(2)); // past the parks and deaths of any earlier test
        awaitState("failures", true);
        java.util.Set<String> unhealthyBefore = unhealthyChecks();
        assertThat(alarm("parked").get("raised").asBoolean()).isFalse();
        long before = alarm("parked").get("lastMinute").asLong();
        for (int i = 0; i < 11; i++) {
            byte[] body = ("{\"id\":\"p" + i + "\",\"status\":\"BRANDNEWWORD\",\"timestamp\":\"2611300931\"}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertThat(SERVICE.api()
                            .postBytes(
                                    "/v1/callbacks/sim",
                                    null,
                                    "application/json",
                                    body,
                                    "X-Signature",
                                    dev.sendlog.service.receipts.CallbackSignature.sign("sim-secret", body))
                            .status())
                    .isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(alarm("parked").get("lastMinute").asLong()).isGreaterThanOrEqualTo(before + 11));
        com.fasterxml.jackson.databind.JsonNode raised = alarms();
        assertThat(raised.get("raised").asBoolean()).isTrue();
        assertThat(raised.get("windowSeconds").asInt()).isEqualTo(60);
        assertThat(raised.get("alarms").get("parked").get("raised").asBoolean()).isTrue();
        assertThat(raised.get("alarms").get("parked").get("limit").asInt()).isEqualTo(10);
        assertThat(gauge("alarms.parked.raised")).isEqualTo(1);
        assertThat(gauge("alarms.parked.last.minute")).isGreaterThanOrEqualTo(11);

        // The burst turned nothing red: whatever else an earlier test left unhealthy, /healthcheck is 200 when it was.
        ApiResponse health = SERVICE.admin().get("/healthcheck", null);
        assertThat(health.json().get("failures").get("healthy").asBoolean())
                .as(health.raw())
                .isTrue();
        assertThat(unhealthyChecks()).isSubsetOf(unhealthyBefore);
        if (unhealthyBefore.isEmpty()) {
            assertThat(health.status()).as(health.raw()).isEqualTo(200);
        }
        assertThat(health.json().get("failures").get("message").asText()).contains("parked callbacks rising");

        SERVICE.clock().advance(Duration.ofSeconds(61));
        assertThat(alarm("parked").get("lastMinute").asLong()).isZero();
        assertThat(alarm("parked").get("raised").asBoolean()).isFalse();
        assertThat(gauge("alarms.parked.raised")).isZero();
    }

    @Test
    void theTimingBreakdownOfTheLastMinuteShowsEveryStageAMessagePassed() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        var breakdown = SERVICE.api().get("/v1/admin/pipeline", "support-1").json();
        assertThat(breakdown.get("windowSeconds").asInt()).isEqualTo(60);
        java.util.List<String> stages = new java.util.ArrayList<>();
        breakdown.get("stages").forEach(s -> {
            if (s.get("count").asLong() > 0) {
                stages.add(s.get("name").asText());
            }
        });
        assertThat(stages)
                .contains(
                        "accept.commit",
                        "poller.claim",
                        "poller.publish",
                        "poller.append",
                        "send.queue.wait",
                        "send.claim",
                        "send.provider",
                        "send.result",
                        "send.accepted.to.sent");
        assertThat(breakdown.get("counters").get("messages.sent").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(SERVICE.api().get("/v1/admin/pipeline", "client-a").status()).isEqualTo(403);
    }

    @Test
    void metricsAreServedInPrometheusTextFormat() {
        ApiResponse r = SERVICE.admin().get("/metrics/prometheus", null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/plain");
        assertThat(r.raw()).contains("# TYPE").contains("poller_claim").contains("accept_commit");
    }
}
