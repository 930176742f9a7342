package dev.sendlog.service.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.send.provider.GatewayRate;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gateway's status-query rate holds across processes (issue 32): {@code queriesPerSecond} is one bucket in Redis that
 * every process's reconciler takes from, so a second process asking about its own messages leaves this one fewer
 * tokens, and the two together never ask more than the rate.
 *
 * <p>The other process is stood for by the same limiter a reconciler builds ({@link GatewayRate#forQueries}), on a Redis
 * client of its own, taking a token whenever it can for as long as this service has messages to ask about. Tokens are
 * counted, not times: over any span the bucket grants at most its capacity plus the rate times the span, so the
 * service's queries (as the provider counted them) plus the other process's grants stay within that, on a slow machine
 * as on a fast one. With a rate per process, the service's twenty queries would come on top of the other's full rate.
 */
class ReconcilerSharedRateTest {
    private static final int RATE = 5;
    private static final int MESSAGES = 20;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.reconcileWindow",
                    "1h",
                    "pipeline.reconcile.queryAfter",
                    "10m",
                    "gateways.sim.statusQuery",
                    "true",
                    "gateways.sim.queriesPerSecond",
                    Integer.toString(RATE))
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void twoProcessesTogetherAskNoMoreThanTheGatewaysQueryRate() throws Exception {
        List<String> ids = Messages.submit(SERVICE, MESSAGES);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        }
        assertThat(SERVICE.simulator().stats().statusQueries())
                .as("nothing asked before queryAfter")
                .isZero();

        RedisConnections otherClient = new RedisConnections(SERVICE.redis().uri(), Duration.ofSeconds(1));
        String prefix = SERVICE.redisPrefix();
        GatewayRate other = GatewayRate.forQueries(
                "sim",
                RATE,
                0.25,
                otherClient.bucketStore(),
                otherClient.connect(GatewayRate.slowKey(GatewayRate.queriesKey(prefix, "sim"))),
                prefix,
                new MetricRegistry());
        AtomicLong otherGrants = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        long start = System.nanoTime();
        Thread otherProcess = Thread.ofVirtual().start(() -> {
            try {
                while (!stop.get()) {
                    if (other.acquire(1, Duration.ofSeconds(1))) {
                        otherGrants.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            SERVICE.clock().advance(Duration.ofMinutes(11)); // every message past queryAfter at once
            Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        for (String id : ids) {
                            assertThat(SERVICE.api()
                                            .get("/v1/messages/" + id, "support-1")
                                            .json()
                                            .get("status")
                                            .asText())
                                    .as(id)
                                    .isEqualTo("DELIVERED");
                        }
                    });
        } finally {
            stop.set(true);
            otherProcess.join();
            otherClient.close();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long serviceQueries = SERVICE.simulator().stats().statusQueries();
        assertThat(serviceQueries).as("every message asked").isGreaterThanOrEqualTo(MESSAGES);
        assertThat(otherGrants.get()).as("the other process asked too").isPositive();
        // The bucket holds one token (a tenth of a second's worth) and starts empty: at most 1 + RATE × span in all,
        // plus one for a grant taken as the span's clock was read.
        assertThat(serviceQueries + otherGrants.get())
                .as("queries of both processes in %.1f s", seconds)
                .isLessThanOrEqualTo((long) Math.floor(RATE * seconds) + 2);
    }
}
